package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/internal/fakegithub"
)

// gateTest is one end-to-end setup: the simulator in process, the test
// workloads and configuration, and a baseline recorded from the simulator
// by perfgate gate itself (its results promoted the way `baseline update`
// does: copied into baselines/<profile>/).
type gateTest struct {
	t         *testing.T
	srv       *sim.Server
	url       string
	dir       string
	baselines string
	env       map[string]string
}

var gateWorkloads = []string{"testdata/gate/decode-a.yaml", "testdata/gate/decode-b.yaml"}

func newGateTest(t *testing.T) *gateTest {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end gate test against the simulator")
	}
	srv := sim.New(gateSimConfig(t))
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	g := &gateTest{t: t, srv: srv, url: ts.URL, dir: t.TempDir(), env: map[string]string{}}
	g.baselines = filepath.Join(g.dir, "baselines")

	// First run: no baselines yet, so every workload is missing one (exit 2).
	code, out, errOut := g.gate("base", "--baselines", filepath.Join(g.dir, "none"))
	if code != ExitInvalid || !strings.Contains(out, "missing-baseline") {
		t.Fatalf("baseline run: exit %d, want 2 with missing baselines\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	rs, err := result.ReadDir(filepath.Join(g.dir, "base", "results"))
	if err != nil || len(rs) != 2 {
		t.Fatalf("baseline results: %d, %v", len(rs), err)
	}
	for _, r := range rs {
		if err := result.Write(filepath.Join(g.baselines, "e2e", result.FileName(r.Workload.Cell)), r); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// laxLag is the dispatch-lag limit of the end-to-end gate runs, as runLax
// does for run: the client shares one race-instrumented process and a
// loaded 2-core machine with the simulator, where a goroutine now and then
// waits 10-20 ms for a CPU before its POST (seen: trials invalid at p99
// 12-17 ms > 10 ms), and two such trials of six make a cell invalid (more
// than 25 % of the arm). These tests are about the verdict, not about a
// saturated client.
var laxLag = []string{"--max-dispatch-lag-ms", "1000"}

// gateSimConfig is the "fast" preset with 5 ms decode steps: Go timers
// wake about a millisecond late on a loaded machine, which is noise of 20 %
// per 1 ms step but 4 % per 5 ms step, and the slower token rate keeps a
// race-instrumented client and server from saturating two cores.
func gateSimConfig(t *testing.T) sim.Config {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.StepBase *= 5
	cfg.DecodeFixed *= 5
	return cfg
}

// gate runs `perfgate gate` with the test configuration, writing to
// dir/<out>; extra flags come last.
func (g *gateTest) gate(out string, extra ...string) (ExitCode, string, string) {
	args := []string{"gate", "--config", "testdata/gate/perfgate.yaml", "--url", g.url,
		"--baselines", g.baselines, "-o", filepath.Join(g.dir, out)}
	args = append(args, laxLag...)
	for _, w := range gateWorkloads {
		args = append(args, "--workloads", w)
	}
	args = append(args, extra...)
	var stdout, stderr bytes.Buffer
	env := os.Environ()
	for k, v := range g.env {
		env = append(env, k+"="+v)
	}
	code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
	return code, stdout.String(), stderr.String()
}

func (g *gateTest) comparison(out string) *verdict.Comparison {
	g.t.Helper()
	data, err := os.ReadFile(filepath.Join(g.dir, out, "comparison.json"))
	if err != nil {
		g.t.Fatal(err)
	}
	var c verdict.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		g.t.Fatal(err)
	}
	return &c
}

func (g *gateTest) slowDecode(scale float64) {
	g.t.Helper()
	if err := g.srv.Update(func(c *sim.Config) { c.DecodeScale = scale }); err != nil {
		g.t.Fatal(err)
	}
}

// TestGateEndToEnd runs the gate against the simulator inside a simulated
// GitHub Actions pull-request run with a fake GitHub API:
//   - an unchanged candidate passes (exit 0) and creates the sticky comment;
//   - decode cost x1.3 is a regression (exit 1) whose first line names TPOT
//     or ITL, and the second run edits the comment instead of adding one;
//   - the same candidate split in two shards and merged gets the same
//     verdict as the unsharded run.
func TestGateEndToEnd(t *testing.T) {
	// Not parallel: its baseline's noise screen and verdict measure the
	// machine, and the other end-to-end runs would be part of it.
	g := newGateTest(t)
	fake := &fakegithub.Server{Token: "ghs_test", Owner: "o", Repo: "r"}
	api := httptest.NewServer(fake)
	t.Cleanup(api.Close)
	event := filepath.Join(g.dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"number": 7, "pull_request": {"number": 7, "head": {"sha": "abc"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	outputs := filepath.Join(g.dir, "github_output")
	g.env = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_API_URL": api.URL, "GITHUB_REPOSITORY": "o/r",
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_TOKEN": "ghs_test",
		"GITHUB_OUTPUT": outputs, "GITHUB_STEP_SUMMARY": filepath.Join(g.dir, "summary.md"),
	}

	code, out, errOut := g.gate("same")
	if code != ExitPass {
		t.Fatalf("unchanged candidate: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if n := fake.Count("POST", `/repos/o/r/issues/7/comments`); n != 1 {
		t.Fatalf("first run: %d comment creations, want 1; requests %+v\nstderr:\n%s", n, fake.Requests(), errOut)
	}
	for _, f := range []string{"comparison.json", "report.md", "comment.md", "report.txt", "results/decode-a.json", "results/decode-b.json"} {
		if _, err := os.Stat(filepath.Join(g.dir, "same", f)); err != nil {
			t.Errorf("output %s: %v", f, err)
		}
	}

	// Decode x1.3 moves TPOT by +27 %, nine times the 3 % tolerance. At
	// x1.1 (+9 %) the regression rule needed the interval's lower end above
	// 3 %, and one trial of six stalled by a loaded machine (+13 % in one
	// baseline trial) widened it to "INCONCLUSIVE +6.1 % (+2.2 to +10.1 %)".
	// A gate that misses regressions still fails here.
	g.slowDecode(1.3)
	code, out, errOut = g.gate("slow")
	first, _, _ := strings.Cut(out, "\n")
	if code != ExitRegression || !strings.HasPrefix(first, "REGRESSION in decode-") || !(strings.Contains(first, "TPOT") || strings.Contains(first, "ITL")) {
		t.Fatalf("decode x1.3: exit %d, first line %q; want exit 1 naming TPOT or ITL\nstdout:\n%s\nstderr:\n%s", code, first, out, errOut)
	}
	if strings.Contains(out+errOut, "ghs_test") {
		t.Error("the token appeared in the output")
	}
	comments := fake.Comments(7)
	if len(comments) != 1 {
		t.Fatalf("%d comments on the PR after two runs, want exactly 1", len(comments))
	}
	if c, e := fake.Count("POST", `/repos/o/r/issues/7/comments`), fake.Count("PATCH", `/repos/o/r/issues/comments/\d+`); c != 1 || e != 1 {
		t.Errorf("%d comment creations and %d edits, want 1 and 1; requests: %+v\nstderr of the second run:\n%s", c, e, fake.Requests(), errOut)
	}
	if body := comments[0].Body; !strings.HasPrefix(body, "### ❌ Regression in decode-") || !strings.Contains(body, "<!-- perfgate:e2e -->") {
		t.Errorf("the edited comment does not start with the regression or lacks the marker:\n%.300s", body)
	}
	if data, err := os.ReadFile(outputs); err != nil || !strings.Contains(string(data), "regression") || !strings.Contains(string(data), "comparison-path") {
		t.Errorf("GITHUB_OUTPUT: %q, %v", data, err)
	}
	unsharded := g.comparison("slow").Verdict

	// Comment modes, judging the results already on disk: on-change edits
	// the comment while the regressed cells stay the same, and posts a new
	// one when the verdict changes. The comment links the artifact.
	g.env["GITHUB_SERVER_URL"], g.env["GITHUB_RUN_ID"] = "https://github.com", "99"
	code, _, errOut = g.gate("again", "--from", filepath.Join(g.dir, "slow", "results"), "--comment=on-change", "--artifact", "perfgate-e2e")
	if n := len(fake.Comments(7)); code != ExitRegression || n != 1 || fake.Count("PATCH", `/repos/o/r/issues/comments/\d+`) != 2 {
		t.Fatalf("on-change, same regression: exit %d, %d comments, requests %+v\n%s", code, n, fake.Requests(), errOut)
	}
	if body := fake.Comments(7)[0].Body; !strings.Contains(body, "artifact `perfgate-e2e` of [this workflow run](https://github.com/o/r/actions/runs/99)") {
		t.Errorf("the comment does not link the artifact:\n%s", body)
	}
	code, _, errOut = g.gate("fixed", "--from", filepath.Join(g.dir, "same", "results"), "--comment", "--comment=on-change")
	if n := len(fake.Comments(7)); code != ExitPass || n != 2 {
		t.Fatalf("on-change, now passing: exit %d, %d comments, want a second one\n%s", code, n, errOut)
	}
	delete(g.env, "GITHUB_RUN_ID")

	g.env = map[string]string{} // the shards run outside Actions
	for i, shard := range []string{"1/2", "2/2"} {
		if code, out, errOut := g.gate("shard"+string(rune('1'+i)), "--shard", shard); code == ExitInvalid || code == ExitRunFailed {
			t.Fatalf("shard %s: exit %d\n%s\n%s", shard, code, out, errOut)
		}
	}
	merged := filepath.Join(g.dir, "merged")
	if code, _, errOut := mergeRunCLI(filepath.Join(g.dir, "shard1"), filepath.Join(g.dir, "shard2"), "-o", merged); code != ExitPass {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	code, out, errOut = g.gate("judged", "--from", merged)
	if got := g.comparison("judged").Verdict; got != unsharded || code != ExitRegression {
		t.Errorf("sharded and merged: verdict %s (exit %d), unsharded %s\n%s\n%s", got, code, unsharded, out, errOut)
	}

	// A server that answers every request with HTTP 500: the run fails
	// (exit 3), the partial result is written marked incomplete, and the
	// report says the run failed.
	if err := g.srv.Update(func(c *sim.Config) { c.DecodeScale = 1; c.Faults.HTTP500Rate = 1 }); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = g.gate("broken")
	if first, _, _ := strings.Cut(out, "\n"); code != ExitRunFailed || !strings.HasPrefix(first, "RUN FAILED: ") {
		t.Fatalf("failing server: exit %d, first line %q; want 3 and RUN FAILED\n%s\n%s", code, first, out, errOut)
	}
	r, err := result.Read(filepath.Join(g.dir, "broken", "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || r.IncompleteReason == "" {
		t.Errorf("partial result: complete=%v reason=%q, want incomplete with a reason", r.Complete, r.IncompleteReason)
	}
	if md, err := os.ReadFile(filepath.Join(g.dir, "broken", "comment.md")); err != nil || !strings.HasPrefix(string(md), "### 🚫 Run failed: ") {
		t.Errorf("comment of a failed run: %v\n%.200s", err, md)
	}
}

func TestGateBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"gate", "--workloads", "testdata/gate/nope.yaml", "--url", "http://127.0.0.1:1"}, "nope.yaml"},
		{[]string{"gate", "--workloads", "testdata/gate/decode-a.yaml"}, "--url"},
		{[]string{"gate", "--workloads", "testdata/gate/*.yml", "--url", "http://127.0.0.1:1"}, "matches no file"},
		{[]string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", "http://127.0.0.1:1", "--shard", "3/2"}, "--shard"},
		{[]string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", "http://127.0.0.1:1", "--progress-interval", "0s"}, "--progress-interval"},
		{[]string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", "http://127.0.0.1:1", "--comment=sometimes"}, "github.comment"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := Main(context.Background(), tt.args, Streams{Out: &out, Err: &errb})
		if code != ExitInvalid || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// TestGateServerDiesBeforeReady: a server command that exits at once is a
// run failure (exit 3) that shows the end of the server's log.
func TestGateServerDiesBeforeReady(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	args := []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "-o", t.TempDir(),
		"--server-cmd", "sh -c 'echo CUDA out of memory >&2; exit 1'", "--url", "http://127.0.0.1:1"}
	code := Main(context.Background(), args, Streams{Out: &out, Err: &errb})
	if code != ExitRunFailed || !strings.Contains(errb.String(), "CUDA out of memory") {
		t.Errorf("exit %d, stderr %q; want 3 with the server's log", code, errb.String())
	}
}
