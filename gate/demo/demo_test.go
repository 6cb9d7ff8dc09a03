package demo

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// laxLimits raises the dispatch-lag limit of the demo tests' client: a
// loaded machine under -race wakes it late now and then (p99 above the
// default 10 ms), and an invalid trial leaves a cell without a verdict.
// These tests are about what the demo finds and writes, not the client.
var laxLimits = metrics.Limits{DispatchLagMs: 1000}

// TestDemoCatchesDecodeSlowdown runs the demo with its default slowdown on
// two small decode-bound workloads (testdata/decode) against the simulator with
// 5 ms steps, which stay steady on a loaded 2-core machine, and checks
// that it reports a regression in a decode metric and writes the comment.
func TestDemoCatchesDecodeSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	ms, err := workload.LoadPaths([]string{"testdata/decode"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.StepBase *= 5
	cfg.DecodeFixed *= 5
	dir := t.TempDir()
	var w, progress bytes.Buffer
	out, err := Run(context.Background(), &w, Options{Manifests: ms, Dir: dir, Sim: &cfg, Progress: &progress, Limits: laxLimits})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	if out.Comparison.Verdict != verdict.Regression {
		t.Fatalf("verdict %s, want regression:\n%s", out.Comparison.Verdict, w.String())
	}
	decode := false
	for _, c := range out.Comparison.Cells {
		if c.Gated && c.Outcome == verdict.Regression && (strings.HasPrefix(c.Metric, "tpot_ms") || strings.HasPrefix(c.Metric, "itl_ms")) {
			decode = true
		}
	}
	if !decode {
		t.Errorf("no decode metric regressed:\n%s", w.String())
	}
	if !strings.HasPrefix(w.String(), "REGRESSION in decode-") {
		t.Errorf("terminal report does not start with the verdict:\n%.200s", w.String())
	}
	// `make demo` prints three progress lines and three closing lines
	// around the report: the whole stays within 40 lines (issue 23).
	if n := strings.Count(w.String(), "\n"); n > 34 {
		t.Errorf("terminal report of %d lines, at most 34:\n%s", n, w.String())
	}
	comment, err := os.ReadFile(out.CommentPath)
	if err != nil || !strings.HasPrefix(string(comment), "### ❌ Regression in decode-") {
		t.Errorf("comment %s: %v\n%.200s", out.CommentPath, err, comment)
	}
	// Issue 24: the regressed rows read as one cause, decode, first.
	if e := out.Comparison.Explanation; e == nil || len(e.Findings) != 1 || e.Findings[0].Phase != verdict.PhaseDecode ||
		!strings.Contains(string(comment), "(one cause; 80 % intervals, details below):\n\n- **Decode** carries the change in ") {
		t.Errorf("the comment does not open with one decode finding: %+v\n%.1500s", e, comment)
	}
	for _, f := range []string{"baseline/decode-a.json", "candidate/decode-b.json", "comparison.json"} {
		if _, err := os.Stat(dir + "/" + f); err != nil {
			t.Error(err)
		}
	}
}

func TestDemoNeedsWorkloads(t *testing.T) {
	if _, err := Run(context.Background(), &bytes.Buffer{}, Options{}); err == nil {
		t.Error("a demo without workloads ran")
	}
}
