package cli

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

const runSmoke = "../../workloads/smoke/"

// runSim starts the fast simulator for one test.
func runSim(t *testing.T) *httptest.Server {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	srv := sim.New(cfg)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

func runMain(ctx context.Context, args ...string) (ExitCode, string, string) {
	var out, errw bytes.Buffer
	code := Main(ctx, append([]string{"run"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errw})
	return code, out.String(), errw.String()
}

// The dispatch lag limit is raised in these tests: a shared 2-core test
// machine under -race is a saturated client, which they are not about.
var runLax = []string{"--max-dispatch-lag-ms", "1000"}

func TestRunWritesResultsPerCell(t *testing.T) {
	t.Parallel()
	ts := runSim(t)
	dir := t.TempDir()
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", runSmoke+"smoke-burst-c4.yaml", "-w", runSmoke+"smoke-chat-c4.yaml",
		"--url", ts.URL, "-o", dir, "--trials", "2", "--warmups", "2", "--save-detailed")...)
	if code != ExitPass {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	rs, err := result.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d result files", len(rs))
	}
	size := map[string]int{"smoke-burst-c4": 32, "smoke-chat-c4": 24}
	for _, r := range rs {
		n := size[r.Workload.Cell]
		if !r.Complete || len(r.Trials) != 2 || r.Server.Model != "sim-fast" || r.Warmups != 2 || r.Workload.Hash == "" {
			t.Errorf("%s: complete %v trials %d model %q warmups %d", r.Workload.Cell, r.Complete, len(r.Trials), r.Server.Model, r.Warmups)
		}
		for _, tr := range r.Trials {
			if !tr.Valid || tr.Completed != n || tr.Values["ttft_ms.p99"] <= 0 || tr.Values["output_throughput"] <= 0 {
				t.Errorf("%s trial %d: valid %v (%s) completed %d", r.Workload.Cell, tr.Index, tr.Valid, tr.InvalidReason, tr.Completed)
			}
		}
		f, err := os.Open(filepath.Join(dir, r.Detailed))
		if err != nil {
			t.Fatalf("detailed file: %v", err)
		}
		lines := 0
		for sc := bufio.NewScanner(f); sc.Scan(); {
			lines++
		}
		f.Close()
		if lines != 2*n {
			t.Errorf("%s: %d detailed lines, want %d", r.Detailed, lines, 2*n)
		}
	}
	if !strings.Contains(errs, "trial 2/2") || strings.Contains(errs, "\r") {
		t.Errorf("progress on a non-terminal should be plain lines:\n%s", errs)
	}
}

func TestRunShard(t *testing.T) {
	t.Parallel()
	ts := runSim(t)
	dir := t.TempDir()
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", runSmoke, "--url", ts.URL, "-o", dir, "--trials", "1", "--warmups", "0", "--shard", "2/3")...)
	if code != ExitPass {
		t.Fatalf("exit %v: %s", code, errs)
	}
	// Sorted cells: burst-c4, chat-c4, poisson-r20, prefix-c8; shard 2/3
	// takes position 1 only.
	if !strings.Contains(out, "smoke-chat-c4:") || strings.Count(out, "->") != 1 {
		t.Errorf("shard 2/3 ran:\n%s", out)
	}
}

func TestRunUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	begin := time.Now()
	code, _, errs := runMain(context.Background(), "-w", runSmoke+"smoke-burst-c4.yaml", "--url", url, "-o", dir, "--ready-timeout", "500ms")
	if code != ExitRunFailed || !strings.Contains(errs, url) || !strings.Contains(errs, "not ready") {
		t.Errorf("exit %v, stderr %s", code, errs)
	}
	if time.Since(begin) > 5*time.Second {
		t.Errorf("took %v", time.Since(begin))
	}
	r, err := result.Read(filepath.Join(dir, "smoke-burst-c4.json"))
	if err != nil || r.Complete || !strings.Contains(r.IncompleteReason, "not ready") {
		t.Errorf("partial result: %v %+v", err, r)
	}
}

func TestRunInterrupt(t *testing.T) {
	t.Parallel()
	ts := runSim(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	code, _, errs := runMain(ctx, append(runLax, "-w", runSmoke+"smoke-poisson-r20.yaml",
		"--url", ts.URL, "-o", dir, "--trials", "3", "--warmups", "0", "--grace", "300ms")...)
	if code != ExitRunFailed || !strings.Contains(errs, "interrupted") {
		t.Fatalf("exit %v: %s", code, errs)
	}
	r, err := result.Read(filepath.Join(dir, "smoke-poisson-r20.json"))
	if err != nil {
		t.Fatal(err)
	}
	last := r.Trials[len(r.Trials)-1]
	if r.Complete || last.Valid || last.Completed == 0 || last.Completed >= 48 {
		t.Errorf("complete %v, last trial valid %v completed %d (%s)", r.Complete, last.Valid, last.Completed, last.InvalidReason)
	}
}

func TestRunBadFlags(t *testing.T) {
	t.Parallel()
	// Every -o names a fresh directory: a case refused only after the
	// output directory is readied must not leave files in the package.
	x := filepath.Join(t.TempDir(), "x")
	tests := [][]string{
		{"--url", "http://127.0.0.1:1", "-o", x},
		{"-w", runSmoke, "-o", x},
		{"-w", runSmoke, "--url", "http://127.0.0.1:1"},
		{"-w", runSmoke, "--url", "ftp://x", "-o", x},
		{"-w", runSmoke, "--url", "http://127.0.0.1:1", "-o", x, "--shard", "3/2"},
		{"-w", "does-not-exist.yaml", "--url", "http://127.0.0.1:1", "-o", x},
	}
	for _, args := range tests {
		if code, _, errs := runMain(context.Background(), args...); code != ExitInvalid || errs == "" {
			t.Errorf("%v: exit %v, stderr %q", args, code, errs)
		}
	}
}

// TestRunBadFlagValues is issue 14's defect 16: each bad value is refused
// before anything runs, naming its flag (or saying what is missing).
func TestRunBadFlagValues(t *testing.T) {
	t.Parallel()
	ok := []string{"-w", runSmoke, "-o", t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "127.0.0.1:8000"}, "--url: server URL 127.0.0.1:8000: missing scheme: write http://127.0.0.1:8000"},
		{[]string{"--url", "localhost:8000"}, "missing scheme: write http://localhost:8000"},
		{[]string{"--url", "u:hunter2@10.0.0.1:8000"}, "missing scheme: write http://[redacted]@10.0.0.1:8000"},
		{[]string{"--url", "http://127.0.0.1:1", "--max-failure-share", "7"}, "--max-failure-share 7: must be a share above 0 and at most 1"},
		{[]string{"--url", "http://127.0.0.1:1", "--max-failure-share", "-0.1"}, "--max-failure-share -0.1"},
		{[]string{"--url", "http://127.0.0.1:1", "--max-failure-share", "NaN"}, "--max-failure-share NaN"},
		{[]string{"--url", "http://127.0.0.1:1", "--grace", "-5s"}, "--grace -5s: must be positive"},
		{[]string{"--url", "http://127.0.0.1:1", "--grace", "0s"}, "--grace 0s: must be positive"},
		{[]string{"--url", "http://127.0.0.1:1", "--max-dispatch-lag-ms", "0"}, "--max-dispatch-lag-ms 0"},
		{[]string{"--url", "http://127.0.0.1:1", "--progress-interval", "-1s"}, "--progress-interval -1s"},
	} {
		code, _, errs := runMain(context.Background(), append(append([]string(nil), ok...), c.args...)...)
		if code != ExitInvalid || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %v, stderr %q, want %q", c.args, code, errs, c.want)
		}
		if strings.Contains(errs, "hunter2") {
			t.Errorf("%v: stderr leaks the password: %q", c.args, errs)
		}
	}
}
