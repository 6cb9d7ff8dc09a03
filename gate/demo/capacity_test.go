package demo

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestDemoGatesCapacity runs the demo with a capacity workload against a
// seat-limited simulator whose 5 ms step is nearly all decode cost: the
// demo's decode slowdown (x3 here, a step of 14 ms) lengthens every step,
// so a seat serves fewer requests per second (-71 to -73 % measured) and
// capacity_rps regresses; the comment draws the probes of both arms. With
// two trials an arm, a busy host (two busy loops, -race) left x1.3 (about
// -20 %) undecided now and then, and x2 decided with an interval of -73
// to -3 %: one slow baseline trial widens it that much.
func TestDemoGatesCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	f, err := workload.Parse("capacity.yaml", []byte(`name: demo-capacity
kind: capacity
dataset: {kind: random, input_tokens: 16, output_tokens: 16, seed: 9}
load: {requests: 30, burstiness: inf}
warmups: 2
trials: {min: 2, max: 2}
slo: {ttft_ms: 250}
capacity: {goodput_share: 95%, max_probes: 5, resolution: 10%}
`))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxNumSeqs = 4
	cfg.StepBase, cfg.DecodeFixed = sim.Duration(500*time.Microsecond), sim.Duration(4500*time.Microsecond)
	cfg.DecodePerSeq, cfg.PrefillPerToken, cfg.PerContextTokenNs, cfg.JitterCV = 0, 0, 0, 0
	dir := t.TempDir()
	var w, progress bytes.Buffer
	out, err := Run(context.Background(), &w, Options{Manifests: ms, Dir: dir, Sim: &cfg, DecodeScale: 3, Progress: &progress, Limits: laxLimits})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	t.Logf("%s", w.String())
	regressed := false
	for _, c := range out.Comparison.Cells {
		if c.Metric == "capacity_rps" && c.Outcome == verdict.Regression {
			regressed = true
		}
	}
	if !regressed {
		t.Errorf("capacity_rps did not regress:\n%s", w.String())
	}
	comment, err := os.ReadFile(out.FullReportPath)
	if err != nil || !strings.Contains(string(comment), "Capacity and saturation") || !strings.Contains(string(comment), "**capacity (binomial interval") {
		t.Errorf("report %s has no capacity curve (%v)", out.FullReportPath, err)
	}
	if !strings.Contains(progress.String(), "probe saturation (rate inf)") {
		t.Errorf("no probe lines in the progress:\n%s", progress.String())
	}
}
