package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestABProfilesBothArms: perfgate ab with --profiling always profiles
// one trial on each arm, A first, and the comment shows the diff: B is
// the simulator with decode x1.3, so mlp and attention take more time per
// step, sampling the same. The two servers are already up (resident)
// and write their traces into one directory, as two vLLMs started with
// the same VLLM_TORCH_PROFILER_DIR do: the arms run one after the other,
// so each profile's trace is the new file.
func TestABProfilesBothArms(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	t.Parallel()
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	if err := os.MkdirAll(traces, 0o755); err != nil {
		t.Fatal(err)
	}
	start := func(scale float64) string {
		cfg := gateSimConfig(t)
		cfg.DecodeScale = scale
		srv, err := sim.NewServer(cfg, sim.Options{Profiles: func(name string) (io.WriteCloser, error) {
			return os.Create(filepath.Join(traces, filepath.Base(name)))
		}})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		t.Cleanup(func() { ts.Close(); srv.Close() })
		return ts.URL
	}
	a, b := start(1), start(1.3)
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, stdout, stderr := abMainEnv(ctx, append(os.Environ(), "PERFGATE_PROFILING_DIR="+traces), "-w", "testdata/gate/decode-a.yaml", "-o", out,
		"--a-url", a, "--b-url", b, "--blocks", "2", "--block-trials", "1", "--max-dispatch-lag-ms", "1000", "--profiling", "always")
	// Two blocks of one trial decide nothing (exit 2: too few pairs); the
	// profile does not depend on the verdict with --profiling always.
	if code == ExitRunFailed {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c verdict.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if c.Explanation == nil || c.Explanation.Kernels == nil {
		t.Fatalf("no kernel section\n%s", stderr)
	}
	k := c.Explanation.Kernels
	if k.Error != "" || len(k.Ops) < 3 || k.Ops[0].Name != "mlp" {
		t.Fatalf("kernels %+v\n%s", k, stderr)
	}
	change := map[string]float64{}
	for _, op := range k.Ops {
		change[op.Name] = op.Change
	}
	if change["mlp"] < 15 || change["attention"] < 15 || change["sampling"] > 3 || change["sampling"] < -3 {
		t.Errorf("kernels %+v", k.Ops)
	}
	for arm, p := range map[string]string{"a": k.BaselineTrace, "b": k.CandidateTrace} {
		if !strings.HasPrefix(p, filepath.Join(out, arm, "profiles")+string(filepath.Separator)) {
			t.Errorf("arm %s's trace %s is not in its output directory", arm, p)
		}
	}
	comment, _ := os.ReadFile(filepath.Join(out, "comment.md"))
	if !strings.Contains(string(comment), "**Kernels per engine step** in decode-a") {
		t.Errorf("the comment lacks the kernels:\n%.3000s", comment)
	}
}
