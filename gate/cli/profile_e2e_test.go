package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// garbled appends bytes after a trace's closing bracket when it closes.
type garbled struct{ *os.File }

func (g garbled) Close() error {
	g.File.WriteString("not json")
	return g.File.Close()
}

// TestGateProfiles: perfgate gate against the simulator, which writes a
// Chrome trace into a directory as vLLM does into VLLM_TORCH_PROFILER_DIR.
//   - A baseline run with profiling: always keeps the op summary that the
//     baseline then carries (<profile>/ops/<cell>.json).
//   - A candidate with decode x1.3 and profiling: on-regression regresses
//     (exit 1) and its comment lists the decode kernels (mlp, attention)
//     whose time per step grew, sampling (the step's fixed part) not.
//   - A malformed trace is a note naming the file; the verdict and the
//     exit code stay those of the measurement.
//   - Without the baseline's op summary the candidate's kernels alone,
//     with what would give a diff.
func TestGateProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end gate test against the simulator")
	}
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	if err := os.MkdirAll(traces, 0o755); err != nil {
		t.Fatal(err)
	}
	var corrupt atomic.Bool
	srv, err := sim.NewServer(gateSimConfig(t), sim.Options{Profiles: func(name string) (io.WriteCloser, error) {
		f, err := os.Create(filepath.Join(traces, filepath.Base(name)))
		if err != nil || !corrupt.Load() {
			return f, err
		}
		return garbled{f}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	store := baseline.Store{Root: filepath.Join(dir, "baselines")}
	gate := func(out, when string, baselines string) (ExitCode, string) {
		args := []string{"gate", "--config", "testdata/gate/perfgate.yaml", "--url", ts.URL, "--baselines", baselines,
			"-o", filepath.Join(dir, out), "--workloads", gateWorkloads[0], "--profiling", when}
		args = append(args, laxLag...)
		var stdout, stderr bytes.Buffer
		env := append(os.Environ(), "PERFGATE_PROFILING_DIR="+traces)
		code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
		return code, stdout.String() + stderr.String()
	}
	comparison := func(out string) *verdict.Comparison {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, out, "comparison.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c verdict.Comparison
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		return &c
	}

	// The baseline: no stored baseline yet (exit 2), profiled anyway.
	if code, log := gate("base", "always", filepath.Join(dir, "none")); code != ExitInvalid {
		t.Fatalf("baseline run: exit %d\n%s", code, log)
	}
	rs, err := result.ReadDir(filepath.Join(dir, "base", "results"))
	if err != nil || len(rs) != 1 {
		t.Fatalf("baseline results: %d, %v", len(rs), err)
	}
	cell := rs[0].Workload.Cell
	if err := result.Write(store.Path("e2e", cell), rs[0]); err != nil {
		t.Fatal(err)
	}
	ops, err := baseline.ReadOpsFile(filepath.Join(dir, "base", "profiles", "ops", result.FileName(cell)))
	if err != nil || ops.Summary.Steps == 0 || ops.Hash != rs[0].Workload.Hash {
		t.Fatalf("the baseline run's op summary: %+v %v", ops, err)
	}
	if _, err := os.Stat(ops.Trace); err != nil || !strings.HasPrefix(ops.Trace, filepath.Join(dir, "base", "profiles")) {
		t.Errorf("the trace is not in the output directory: %s %v", ops.Trace, err)
	}
	if err := baseline.WriteOpsFile(store.OpsPath("e2e", cell), ops); err != nil {
		t.Fatal(err)
	}

	if err := srv.Update(func(c *sim.Config) { c.DecodeScale = 1.3 }); err != nil {
		t.Fatal(err)
	}
	code, log := gate("slow", "on-regression", store.Root)
	c := comparison("slow")
	if code != ExitRegression || c.Verdict != verdict.Regression {
		t.Fatalf("slow: exit %d, verdict %s\n%s", code, c.Verdict, log)
	}
	k := c.Explanation.Kernels
	if k == nil || k.Error != "" || k.CandidateOnly || len(k.Ops) < 3 {
		t.Fatalf("kernels %+v\n%s", k, log)
	}
	change := map[string]float64{}
	for _, op := range k.Ops {
		change[op.Name] = op.Change
		t.Logf("%s: %.3g -> %.3g µs per step (%+.1f %%)", op.Name, op.Baseline, op.Candidate, op.Change)
	}
	if k.Ops[0].Name != "mlp" || change["mlp"] < 15 || change["attention"] < 15 || change["sampling"] > 3 || change["sampling"] < -3 {
		t.Errorf("kernels %+v", k.Ops)
	}
	comment, _ := os.ReadFile(filepath.Join(dir, "slow", "comment.md"))
	if !strings.Contains(string(comment), "**Kernels per engine step** in "+cell) || !strings.Contains(string(comment), "mlp +") {
		t.Errorf("the comment lacks the kernels:\n%.3000s", comment)
	}

	// A malformed trace: a note naming the file, the same verdict.
	corrupt.Store(true)
	code, log = gate("bad", "on-regression", store.Root)
	c = comparison("bad")
	if code != ExitRegression || c.Verdict != verdict.Regression {
		t.Fatalf("bad trace: exit %d, verdict %s\n%s", code, c.Verdict, log)
	}
	if k := c.Explanation.Kernels; k == nil || !strings.Contains(k.Error, "trace "+filepath.Join(dir, "bad", "profiles")) || !strings.Contains(k.Error, "data after") {
		t.Errorf("bad trace: %+v", k)
	}
	comment, _ = os.ReadFile(filepath.Join(dir, "bad", "comment.md"))
	if !strings.Contains(string(comment), "Kernel profile of "+cell+": none (trace profiles/") || strings.Contains(string(comment), dir) {
		t.Errorf("the comment lacks the note:\n%.3000s", comment)
	}
	corrupt.Store(false)

	// No op summary beside the baseline: the candidate's kernels only.
	if err := os.Remove(store.OpsPath("e2e", cell)); err != nil {
		t.Fatal(err)
	}
	code, log = gate("nobase", "on-regression", store.Root)
	c = comparison("nobase")
	if k := c.Explanation.Kernels; code != ExitRegression || k == nil || !k.CandidateOnly || len(k.Ops) == 0 || !strings.Contains(k.Note, "profiling.when: always") {
		t.Errorf("without a baseline summary: exit %d %+v\n%s", code, k, log)
	}
}

// TestProfileUnsupportedEngine: an engine without profiling endpoints is
// a note saying so, never a failure; a vLLM without a trace directory
// says how to start it.
func TestProfileUnsupportedEngine(t *testing.T) {
	m := &workload.Manifest{Cell: "w"}
	g := &gateProfile{getenv: func(string) string { return "" }}
	if k := g.take(context.Background(), nil, "http://127.0.0.1:1", "", m, engine.Ollama); !strings.Contains(k.Error, "engine ollama serves no profiling endpoints") {
		t.Errorf("ollama: %+v", k)
	}
	if k := g.take(context.Background(), nil, "http://127.0.0.1:1", "", m, engine.VLLM); !strings.Contains(k.Error, "VLLM_TORCH_PROFILER_DIR") {
		t.Errorf("vllm without a directory: %+v", k)
	}
	g = &gateProfile{cfg: config.Profiling{}, env: []string{"VLLM_TORCH_PROFILER_DIR=/srv/traces"}}
	if d := g.traceDir(engine.Must(engine.VLLM).Profiler); d != "/srv/traces" {
		t.Errorf("server.env: %q", d)
	}
}

// TestRunProfilesForBaselines: `perfgate run --profiling always` keeps an
// op summary per cell beside its results, and `baseline update` promotes
// it beside the baseline, where gate finds it; --profiling on-regression
// is refused (run has no verdict).
func TestRunProfilesForBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	t.Parallel()
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	srv, err := sim.NewServer(gateSimConfig(t), sim.Options{Profiles: func(name string) (io.WriteCloser, error) {
		if err := os.MkdirAll(traces, 0o755); err != nil {
			return nil, err
		}
		return os.Create(filepath.Join(traces, filepath.Base(name)))
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	out := filepath.Join(dir, "run")
	code, stdout, stderr := runCLI("run", "-w", gateWorkloads[0], "--url", ts.URL, "-o", out, "--trials", "3",
		"--max-dispatch-lag-ms", "1000", "--profiling", "always", "--profiling-dir", traces)
	if code != ExitPass || !strings.Contains(stdout, ": profile ") {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	store := baseline.Store{Root: filepath.Join(dir, "baselines")}
	code, stdout, stderr = runCLI("baseline", "update", "--from", out, "--profile", "p", "--baselines", store.Root, "--min-trials", "3", "--accept-noisy")
	if code != ExitPass {
		t.Fatalf("baseline update: exit %d\n%s\n%s", code, stdout, stderr)
	}
	ops, err := baseline.ReadOpsFile(store.OpsPath("p", "decode-a"))
	if err != nil || ops.Summary.Steps == 0 || !strings.Contains(stdout, store.OpsPath("p", "decode-a")) {
		t.Errorf("promoted op summary: %+v %v\n%s", ops, err, stdout)
	}
	if code, _, stderr := runCLI("run", "-w", gateWorkloads[0], "--url", ts.URL, "-o", filepath.Join(dir, "r2"), "--profiling", "on-regresion"); code != ExitInvalid || !strings.Contains(stderr, `--profiling "on-regresion": want always or never`) {
		t.Errorf("bad --profiling: exit %d %s", code, stderr)
	}
}
