package pipeline_test

import (
	"context"
	"testing"

	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestWorseBatchingAtTheBaselineRate runs a share-of-saturation workload
// against the seat-limited simulator of the capacity tests, the candidate
// with a quarter of the seats (max_num_seqs 1 instead of 4, as in
// TestWorseBatchingFailsCapacityOnly). Its saturation falls to a quarter,
// so at its own 80 % it runs at a quarter of the baseline's rate, where no
// request queues for a seat in either arm and E2EL is the same 16 steps:
// the share cell passes (the knee moved with the saturation, which only a
// capacity workload gates). At the baseline's absolute rate, 320 % of what
// the candidate serves, the backlog grows over the trial and E2EL with it:
// the comparison at the baseline's rate regresses. With half the seats
// (160 %) a loaded host, which also measured the baseline's saturation at
// half the model's, left only +20 %; a quarter leaves no doubt.
func TestWorseBatchingAtTheBaselineRate(t *testing.T) {
	m := capacityManifest(t, `name: two
dataset: {kind: random, input_tokens: 16, output_tokens: 16, seed: 13}
load: {requests: 12, rate: 80%-of-saturation, burstiness: inf}
warmups: 2
trials: {min: 3, max: 3}
`)
	srv, url := capacitySim(t, capSeats)
	c := capacityRunner(t, url)
	ctx := context.Background()
	base, err := pipeline.Record(ctx, c, []*workload.Manifest{m}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Update(func(cfg *sim.Config) { cfg.MaxNumSeqs = capFewSeats }); err != nil {
		t.Fatal(err)
	}
	policy := verdict.DefaultPolicy()
	policy.MinTrials = 3
	policy.AssumedBetween = map[string]float64{"*": 0} // one server start for both arms
	// E2EL is 16 engine steps at either arm's own share: a tolerance
	// above a loaded machine's timer noise on 80 ms.
	policy.Rules = []verdict.Rule{{Metric: "e2el_ms.p50", Gated: true, Tolerance: 0.1}}
	out, err := pipeline.Run(ctx, c, []*workload.Manifest{m}, pipeline.Options{Baselines: base, Policy: policy})
	if err != nil || out.RunErr != nil {
		t.Fatal(err, out.RunErr)
	}
	if len(out.Results) != 2 {
		t.Fatalf("%d results, want two and two@baseline-rate", len(out.Results))
	}
	bs, cs, at := base[0].Saturation, out.Results[0].Saturation, out.Results[1].BaselineRate
	t.Logf("baseline saturation %.1f req/s, ran at %.1f; candidate saturation %.1f, ran at %.1f and at the baseline's %.1f",
		bs.ThroughputRPS, bs.RateRPS, cs.ThroughputRPS, cs.RateRPS, at.RateRPS)
	if at.RateRPS != bs.RateRPS || !(cs.RateRPS < 0.7*bs.RateRPS) {
		t.Errorf("candidate rates %.1f and %.1f: want its own share well below the baseline's %.1f, and the baseline's", cs.RateRPS, at.RateRPS, bs.RateRPS)
	}
	got := map[string]verdict.Cell{}
	for _, cell := range out.Comparison.Cells {
		if !cell.Gated {
			continue
		}
		t.Logf("%s %s: %s (%+.1f%%)", cell.Workload, cell.Metric, cell.Outcome, cell.Change)
		got[cell.Workload] = cell
	}
	if got["two"].Outcome == verdict.Regression {
		t.Error("at its own share of saturation the candidate regressed, but no request waits for a seat there")
	}
	// At the baseline's rate requests queue for the one seat left: E2EL
	// rises far beyond the 10 % tolerance. That direction and size no
	// loaded machine hides; whether three trials decide it at the
	// family's alpha under -race on a busy host is a rate (the verdict's
	// seeded tests), so an undecided cell passes when it moved this far.
	if c := got["two@baseline-rate"]; c.Change < 30 || (c.Outcome != verdict.Regression && c.Outcome != verdict.Inconclusive) {
		t.Errorf("at the baseline's rate: %s (%+.1f%%), want a regression of E2EL (or undecided, above +30 %%)", c.Outcome, c.Change)
	}
}
