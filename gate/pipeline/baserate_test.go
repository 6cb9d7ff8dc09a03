package pipeline

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// jittered adds a small deterministic spread to the latency of each trial
// its Trials appends, so the fake's trials are not all identical.
type jittered struct{ Trials }

func (j jittered) RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	have := len(res.Trials)
	err := j.Trials.RunTrials(ctx, m, res, n)
	for k := have; k < len(res.Trials); k++ {
		if v, ok := res.Trials[k].Values["ttft_ms.p99"]; ok {
			res.Trials[k].Values["ttft_ms.p99"] = v * (1 + 0.004*float64(k%3-1))
		}
	}
	return err
}

const twoStepSrc = "name: two\ndataset: {kind: random, input_tokens: 4, output_tokens: 2}\nload: {requests: 50, rate: 80%-of-saturation, concurrency: 8}\ntrials: {min: 3, max: 3}\n"

// ttftPolicy gates only the fake's latency, so the test reads what the two
// comparisons say about it.
func ttftPolicy() verdict.Policy {
	p := verdict.DefaultPolicy()
	p.MinTrials = 3
	p.AssumedBetween = map[string]float64{"*": 0}
	p.Rules = []verdict.Rule{{Metric: "ttft_ms.p99", Gated: true, Tolerance: 0.05}}
	return p
}

// recordTwoStep records the share cell against a fake of capacity mu.
func recordTwoStep(t *testing.T, mu float64) []*result.Result {
	t.Helper()
	base, err := Record(context.Background(), Capacity{Serving: jittered{&queueServer{mu: mu}}}, []*workload.Manifest{manifestOf(t, twoStepSrc)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	base[0].StartedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return base
}

func outcomes(cmp *verdict.Comparison) map[string]verdict.Outcome {
	out := map[string]verdict.Outcome{}
	for _, c := range cmp.Cells {
		if c.Gated {
			out[c.Workload+" "+c.Metric] = c.Outcome
		}
	}
	return out
}

// TestShareCellComparedAtBaselineRate: the baseline (capacity 40 req/s)
// ran its 80 % at 32 req/s; the candidate's capacity is 20. At its own
// 80 % (16 req/s) the candidate is as fast as the baseline at its own,
// so the share cell passes; run also at the baseline's 32 req/s it is
// overloaded, and two@baseline-rate regresses, in the same comparison.
func TestShareCellComparedAtBaselineRate(t *testing.T) {
	base := recordTwoStep(t, 40)
	q := &queueServer{mu: 20}
	m := manifestOf(t, twoStepSrc)
	out, err := Run(context.Background(), Capacity{Serving: jittered{q}}, []*workload.Manifest{m}, Options{Baselines: base, Policy: ttftPolicy()})
	if err != nil || out.RunErr != nil {
		t.Fatal(err, out.RunErr)
	}
	if got, want := strings.Join(q.runs, " "), "inf@8 16@8 16@8 16@8 32@8 32@8 32@8"; got != want {
		t.Errorf("candidate runs %q, want %q: its own 80 %% after its saturation run, then the baseline's 32 req/s", got, want)
	}
	if len(out.Results) != 2 {
		t.Fatalf("%d results, want the share cell and its comparison at the baseline's rate", len(out.Results))
	}
	at := out.Results[1]
	if at.Workload.Cell != "two@baseline-rate" || at.BaselineRate == nil || at.BaselineRate.RateRPS != 32 || at.BaselineRate.Cell != "two" || at.Saturation != nil {
		t.Errorf("second result: cell %q, baseline rate %+v, saturation %+v", at.Workload.Cell, at.BaselineRate, at.Saturation)
	}
	if at.Workload.Hash != workload.AtRateHash(base[0].Workload.Hash, 32) {
		t.Error("the candidate's hash at the baseline's rate is not AtRateHash of the share hash and the rate")
	}
	for _, w := range out.Comparison.Workloads {
		if w.Status != verdict.Compared {
			t.Errorf("%s: %s %s", w.Cell, w.Status, w.Message)
		}
	}
	got := outcomes(out.Comparison)
	if got["two ttft_ms.p99"] == verdict.Regression {
		t.Error("share cell regressed, but at its own share the candidate is as fast")
	}
	if got["two@baseline-rate ttft_ms.p99"] != verdict.Regression {
		t.Errorf("at the baseline's rate: %s, want regression (outcomes %v)", got["two@baseline-rate ttft_ms.p99"], got)
	}
	if out.Comparison.Verdict != verdict.Regression {
		t.Errorf("verdict %s, want regression", out.Comparison.Verdict)
	}
	if _, err := result.Marshal(at); err != nil {
		t.Fatal(err)
	}

	// gate --from judges the written results the same way, building the
	// baseline side from the share cell's baseline again.
	j, err := Judge(out.Results, base, []*workload.Manifest{m}, ttftPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if jg := outcomes(j.Comparison); jg["two@baseline-rate ttft_ms.p99"] != verdict.Regression || len(j.Comparison.Workloads) != 2 {
		t.Errorf("judged: %v over %d workloads", jg, len(j.Comparison.Workloads))
	}
}

// TestMissingBaselineRateWarns: a baseline of the share cell that records
// no saturation (older or imported) is compared at the arms' own shares,
// with a warning naming the comparison left out.
func TestMissingBaselineRateWarns(t *testing.T) {
	base := recordTwoStep(t, 40)
	base[0].Saturation = nil
	q := &queueServer{mu: 20}
	out, err := Run(context.Background(), Capacity{Serving: jittered{q}}, []*workload.Manifest{manifestOf(t, twoStepSrc)}, Options{Baselines: base, Policy: ttftPolicy()})
	if err != nil || out.RunErr != nil {
		t.Fatal(err, out.RunErr)
	}
	if len(out.Results) != 1 || len(q.runs) != 4 {
		t.Errorf("%d results, runs %v: want the share cell only", len(out.Results), q.runs)
	}
	if w := strings.Join(out.Comparison.Warnings, "\n"); !strings.Contains(w, "two: the baseline records no saturation rate") || !strings.Contains(w, "two@baseline-rate is not run") {
		t.Errorf("warnings %q", w)
	}
}

// TestBaselineRateNeedsTheSameWorkload: a share workload changed since
// the baseline is not run at the baseline's rate (the share cell reports
// the change), and a candidate result at another rate than the
// baseline's is refused as a changed workload, with a warning, never
// compared with trials of another load.
func TestBaselineRateNeedsTheSameWorkload(t *testing.T) {
	base := recordTwoStep(t, 40)
	changed := manifestOf(t, strings.Replace(twoStepSrc, "requests: 50", "requests: 51", 1))
	q := &queueServer{mu: 20}
	out, err := Run(context.Background(), Capacity{Serving: q}, []*workload.Manifest{changed}, Options{Baselines: base, Policy: ttftPolicy()})
	if err != nil || out.RunErr != nil {
		t.Fatal(err, out.RunErr)
	}
	if len(out.Results) != 1 || out.Comparison.Workloads[0].Status != verdict.WorkloadChanged {
		t.Errorf("%d results, status %s", len(out.Results), out.Comparison.Workloads[0].Status)
	}

	// A candidate measured at 32 req/s judged against a baseline that
	// later ran at 30.
	m := manifestOf(t, twoStepSrc)
	at, err := m.AtBaselineRate(32)
	if err != nil {
		t.Fatal(err)
	}
	cand := &result.Result{Workload: result.Workload{Name: at.Name, Cell: at.Cell, Hash: at.Hash, Spec: at.Spec}, BaselineRate: at.BaselineRate, Complete: true}
	newer := *base[0]
	newer.Saturation = &result.Saturation{Share: 0.8, ThroughputRPS: 37.5, RateRPS: 30}
	bs, warns := WithBaselineRate([]*result.Result{&newer}, []*result.Result{cand})
	if len(bs) != 2 || bs[1].Workload.Cell != at.Cell || bs[1].Workload.Hash == at.Hash {
		t.Fatalf("baselines %d, want the share cell and its own-rate copy under another hash", len(bs))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "the candidate ran at 32 req/s, but the baseline of two ran at 30 req/s") {
		t.Errorf("warnings %q", warns)
	}
	cmp, err := verdict.Compare(bs[1:], []*result.Result{cand}, ttftPolicy(), verdict.Look{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Workloads) != 1 || cmp.Workloads[0].Status != verdict.WorkloadChanged {
		t.Errorf("%+v, want %s changed", cmp.Workloads, at.Cell)
	}
}

// TestWithBaselineRateSessions: a stored result of a cell at the
// baseline's rate (a gate's results promoted) is replaced by the one
// built from the share cell; every session at the candidate's rate
// stands in, one at another rate does not; a baseline without a rate
// leaves the cell without one, with a warning.
func TestWithBaselineRateSessions(t *testing.T) {
	mk := func(rate float64, day int) *result.Result {
		return &result.Result{Workload: result.Workload{Name: "two", Cell: "two", Hash: "h"}, Complete: true,
			StartedAt:  time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC),
			Saturation: &result.Saturation{Share: 0.8, ThroughputRPS: rate / 0.8, RateRPS: rate}}
	}
	stored := &result.Result{Workload: result.Workload{Cell: "two@baseline-rate", Hash: "x"}, BaselineRate: &result.BaselineRate{Cell: "two", RateRPS: 32}}
	cand := &result.Result{Workload: result.Workload{Cell: "two@baseline-rate", Hash: workload.AtRateHash("h", 32)}, BaselineRate: &result.BaselineRate{Cell: "two", ShareHash: "h", Share: 0.8, RateRPS: 32}}
	bs, warns := WithBaselineRate([]*result.Result{mk(32, 1), stored, mk(30, 2), mk(32, 3)}, []*result.Result{cand})
	var at []*result.Result
	for _, b := range bs {
		if b == stored {
			t.Error("the stored result at the baseline's rate was kept")
		}
		if b.Workload.Cell == "two@baseline-rate" {
			at = append(at, b)
		}
	}
	if len(at) != 2 || len(warns) != 0 || len(bs) != 5 {
		t.Fatalf("%d sessions at the rate, %d baselines, warnings %q: want the two sessions at 32 req/s", len(at), len(bs), warns)
	}
	for _, b := range at {
		if b.Workload.Hash != cand.Workload.Hash || b.BaselineRate.RateRPS != 32 || b.Saturation != nil || len(b.Trials) != 0 {
			t.Errorf("session %v: hash %s rate %+v", b.StartedAt, b.Workload.Hash, b.BaselineRate)
		}
	}
	noRate := mk(32, 1)
	noRate.Saturation = nil
	bs, warns = WithBaselineRate([]*result.Result{noRate}, []*result.Result{cand})
	if len(bs) != 1 || len(warns) != 1 || !strings.Contains(warns[0], "records no saturation rate") {
		t.Errorf("%d baselines, warnings %q", len(bs), warns)
	}
}

// TestBaselineRateFromNewestSession: sessions at different rates run the
// candidate at the newest one's, with a warning.
func TestBaselineRateFromNewestSession(t *testing.T) {
	old, newer := recordTwoStep(t, 40), recordTwoStep(t, 30)
	newer[0].StartedAt = old[0].StartedAt.Add(time.Hour)
	ms, warns := withBaselineRate([]*workload.Manifest{manifestOf(t, twoStepSrc)}, append(old, newer...))
	if len(ms) != 2 || ms[1].Rate != 24 || ms[1].BaselineRate.RateRPS != 24 {
		t.Fatalf("%d manifests (rate %v), want the share cell and its copy at the newest session's 24 req/s", len(ms), ms[len(ms)-1].Rate)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "1 baseline session(s) ran at another absolute rate than the newest one's 24 req/s") {
		t.Errorf("warnings %q", warns)
	}
}

// TestTrustedRulesBindTheCellAtBaselineRate: a rule the share cell's
// baseline was promoted with (Policy.Trusted) binds its comparison at the
// baseline's rate too, where the candidate's own policy gates less; the
// caller's policy is not changed.
func TestTrustedRulesBindTheCellAtBaselineRate(t *testing.T) {
	base := recordTwoStep(t, 40)
	p := ttftPolicy()
	p.Rules = []verdict.Rule{{Metric: "request_throughput", Gated: false}}
	p.Trusted = map[string][]verdict.Rule{"two": {{Metric: "ttft_ms.p99", Gated: true, Tolerance: 0.05}}}
	out, err := Run(context.Background(), Capacity{Serving: jittered{&queueServer{mu: 20}}}, []*workload.Manifest{manifestOf(t, twoStepSrc)}, Options{Baselines: base, Policy: p})
	if err != nil || out.RunErr != nil {
		t.Fatal(err, out.RunErr)
	}
	if got := outcomes(out.Comparison)["two@baseline-rate ttft_ms.p99"]; got != verdict.Regression {
		t.Errorf("at the baseline's rate, the trusted ttft_ms.p99 rule: %s, want a gated regression", got)
	}
	if len(p.Trusted) != 1 {
		t.Errorf("the caller's trusted rules were changed: %v", p.Trusted)
	}
}

// TestUnrunnableBaselineRateWarns: a baseline file whose recorded rate no
// cell can run at (edited by hand) is a warning, not a failed gate.
func TestUnrunnableBaselineRateWarns(t *testing.T) {
	base := recordTwoStep(t, 40)
	base[0].Saturation.RateRPS = math.Inf(1)
	ms, warns := withBaselineRate([]*workload.Manifest{manifestOf(t, twoStepSrc)}, base)
	if len(ms) != 1 || len(warns) != 1 || !strings.Contains(warns[0], "two: not compared at the baseline's rate") {
		t.Errorf("%d manifests, warnings %q", len(ms), warns)
	}
}
