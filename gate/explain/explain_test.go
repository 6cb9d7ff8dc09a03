package explain

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func TestWelch(t *testing.T) {
	for _, tc := range []struct {
		name          string
		b, c          []float64
		delta, lo, hi float64
		moved, noCI   bool
	}{
		// se = sqrt(1/3 + 1/3), df = 4, t(0.9, 4) = 1.5332: the interval
		// -0.2518..2.2518 holds zero.
		{"overlapping", []float64{1, 2, 3}, []float64{2, 3, 4}, 1, -0.2518, 2.2518, false, false},
		// No spread at all: the difference is the interval.
		{"exact", []float64{10, 10, 10}, []float64{11, 11, 11}, 1, 1, 1, true, false},
		{"no change", []float64{5, 5}, []float64{5, 5}, 0, 0, 0, false, false},
		// Same spread, far apart: df 4 again, half-width 1.2518.
		{"worse", []float64{1, 2, 3}, []float64{11, 12, 13}, 10, 8.7482, 11.2518, true, false},
		{"better", []float64{11, 12, 13}, []float64{1, 2, 3}, -10, -11.2518, -8.7482, true, false},
		// One trial in an arm: a point, never "moved".
		{"one trial", []float64{1}, []float64{3, 4}, 2.5, 2.5, 2.5, false, true},
	} {
		got := welch(tc.b, tc.c, 0.8)
		if math.Abs(got.Delta-tc.delta) > 1e-9 || math.Abs(got.DeltaLow-tc.lo) > 1e-3 || math.Abs(got.DeltaHigh-tc.hi) > 1e-3 ||
			got.Moved != tc.moved || got.NoInterval != tc.noCI {
			t.Errorf("%s: %+v", tc.name, got)
		}
	}
}

// change is a phase change with the given delta that moved or not.
func change(p verdict.Phase, delta float64, moved bool) verdict.PhaseChange {
	return verdict.PhaseChange{Phase: p, Delta: delta, Moved: moved}
}

func TestCarrier(t *testing.T) {
	moved := verdict.PhaseChange{Moved: true, Delta: 1}
	for _, tc := range []struct {
		name             string
		q, p, d          verdict.PhaseChange
		perToken, tokens verdict.PhaseChange
		want             verdict.Phase
	}{
		{"decode adds most", change("queue", 1, true), change("prefill", 2, true), change("decode", 9, true), moved, verdict.PhaseChange{}, verdict.PhaseDecode},
		{"prefill adds most", change("queue", 0, false), change("prefill", 5, true), change("decode", 1, true), moved, verdict.PhaseChange{}, verdict.PhasePrefill},
		// The largest delta did not move beyond its interval: the next one carries.
		{"noisy queue", change("queue", 20, false), change("prefill", 0, false), change("decode", 3, true), moved, verdict.PhaseChange{}, verdict.PhaseDecode},
		{"server queue", change("queue", 60, true), change("prefill", -1, false), change("decode", 40, true), moved, verdict.PhaseChange{}, verdict.PhaseQueue},
		// Decode time rose with the tokens, each token as fast as before.
		{"longer outputs", change("queue", 0, false), change("prefill", 0, false), change("decode", 9, true), verdict.PhaseChange{}, moved, verdict.PhaseLength},
		// Only faster phases moved: nothing carries a slowdown.
		{"tail only", change("queue", 0, false), change("prefill", -2, true), change("decode", 0, false), verdict.PhaseChange{}, verdict.PhaseChange{}, verdict.PhaseNone},
	} {
		s := verdict.PhaseSplit{Phases: []verdict.PhaseChange{tc.q, tc.p, tc.d}, PerToken: tc.perToken, Tokens: tc.tokens}
		if got := carrier(s); got != tc.want {
			t.Errorf("%s: carrier %s, want %s", tc.name, got, tc.want)
		}
	}
}

// arm builds a result whose valid trials have the given per-request means
// (ms) and 9 output tokens a request; queue is the server's queue time in
// ms (negative: not recorded); server holds extra /metrics figures per
// trial.
func arm(cell string, ttft, e2el []float64, queue float64, server map[string][]float64) *result.Result {
	r := &result.Result{Workload: result.Workload{Cell: cell}, Server: result.Server{Engine: "vllm"}}
	for i := range ttft {
		tr := result.Trial{Index: i, Valid: true, Values: map[string]float64{
			keyTTFT: ttft[i], keyE2EL: e2el[i], keyOutTokens: 90, keyCompleted: 10, keyClientQueue: 1}, Server: map[string]float64{}}
		if queue >= 0 {
			tr.Server[keyServerQueue] = queue / 1000
		}
		for k, v := range server {
			tr.Server[k] = v[i]
		}
		r.Trials = append(r.Trials, tr)
	}
	r.Trials = append(r.Trials, result.Trial{Index: 99, Valid: false, Values: map[string]float64{keyTTFT: 1e6, keyE2EL: 1e6}})
	return r
}

// regressed is a comparison in which the given cells regressed.
func regressed(cells ...string) *verdict.Comparison {
	c := &verdict.Comparison{Policy: verdict.DefaultPolicy()}
	for _, wm := range cells {
		w, m, _ := strings.Cut(wm, "/")
		c.Cells = append(c.Cells, verdict.Cell{Workload: w, Metric: m, Gated: true, Outcome: verdict.Regression})
	}
	c.Cells = append(c.Cells, verdict.Cell{Workload: "calm", Metric: "tpot_ms.p50", Gated: true, Outcome: verdict.Pass})
	return c
}

func TestExplainSplitsAndGroups(t *testing.T) {
	ttft := []float64{10, 10.2, 9.8, 10.1, 9.9}
	base := map[string]*result.Result{
		"a":    arm("a", ttft, []float64{90, 91, 89, 90.5, 89.5}, 2, nil),
		"b":    arm("b", ttft, []float64{50, 50.5, 49.5, 50.2, 49.8}, 2, nil),
		"p":    arm("p", ttft, []float64{50, 50.5, 49.5, 50.2, 49.8}, 2, nil),
		"calm": arm("calm", ttft, ttft, 2, nil),
	}
	plus := func(x []float64, d float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = v + d
		}
		return out
	}
	cand := map[string]*result.Result{
		// Decode +10.4 ms (80 ms over 8 tokens: +13 % a token).
		"a": arm("a", ttft, plus([]float64{90, 91, 89, 90.5, 89.5}, 10.4), 2, nil),
		// Decode +5.2 ms of 40 (+13 %).
		"b": arm("b", ttft, plus([]float64{50, 50.5, 49.5, 50.2, 49.8}, 5.2), 2, nil),
		// TTFT +3 ms, all of it prefill (the server queue stayed at 2 ms).
		"p":    arm("p", plus(ttft, 3), plus([]float64{50, 50.5, 49.5, 50.2, 49.8}, 3), 2, nil),
		"calm": arm("calm", ttft, ttft, 2, nil),
	}
	e := Explain(regressed("a/tpot_ms.p50", "a/e2el_ms.p50", "b/tpot_ms.p50", "p/ttft_ms.p50"), base, cand)
	if e == nil || e.Schema != verdict.ExplanationSchema || math.Abs(e.CILevel-0.8) > 1e-12 {
		t.Fatalf("explanation %+v", e)
	}
	if len(e.Workloads) != 3 || len(e.Findings) != 2 {
		t.Fatalf("want 3 splits in 2 findings: %+v", e)
	}
	d, p := e.Findings[0], e.Findings[1]
	if d.Phase != verdict.PhaseDecode || !reflect.DeepEqual(d.Workloads, []string{"a", "b"}) ||
		!reflect.DeepEqual(d.Cells, []string{"a/tpot_ms.p50", "a/e2el_ms.p50", "b/tpot_ms.p50"}) {
		t.Errorf("decode finding %+v", d)
	}
	// a: 10.4 / 80 = 13.0 %; b: 5.2 / 40 = 13.0 %; all of E2EL's change.
	if math.Abs(d.ChangeLow-13) > 0.01 || math.Abs(d.ChangeHigh-13) > 0.01 || math.Abs(d.ShareLow-100) > 0.01 {
		t.Errorf("decode finding change %.2f..%.2f share %.1f..%.1f", d.ChangeLow, d.ChangeHigh, d.ShareLow, d.ShareHigh)
	}
	if !reflect.DeepEqual(d.Unchanged, []verdict.Phase{verdict.PhaseQueue, verdict.PhasePrefill}) {
		t.Errorf("decode finding unchanged %v", d.Unchanged)
	}
	// p: prefill 8 -> 11 ms (+37.5 %), the whole E2EL change.
	if p.Phase != verdict.PhasePrefill || math.Abs(p.ChangeLow-37.5) > 0.01 || math.Abs(p.ShareHigh-100) > 0.01 ||
		!reflect.DeepEqual(p.Unchanged, []verdict.Phase{verdict.PhaseQueue, verdict.PhaseDecode}) {
		t.Errorf("prefill finding %+v", p)
	}
	a := e.Workloads[0]
	if !a.ServerQueue || a.Phases[0].Baseline != 2 || a.Phases[1].Baseline != 8 || a.Tokens.Baseline != 9 || math.Abs(a.PerToken.Baseline-10) > 1e-9 {
		t.Errorf("split of a: %+v", a)
	}
	// The comparison's JSON carries the explanation and reads back equal.
	c := regressed("a/tpot_ms.p50")
	Attach(c, base, cand, nil)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back verdict.Comparison
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(c.Explanation, back.Explanation) {
		t.Errorf("round trip changed the explanation (%v)", err)
	}
	if !strings.Contains(string(data), `"explanation":{"schema":"perfgate.explanation/v1"`) {
		t.Errorf("JSON lacks the versioned explanation: %.300s", data)
	}
}

func TestExplainWithoutServerQueue(t *testing.T) {
	ttft := []float64{10, 10.2, 9.8}
	e2el := []float64{50, 50.5, 49.5}
	// The candidate's server exposed no queue time: neither arm's is used,
	// and TTFT counts whole as prefill in both.
	e := Explain(regressed("w/ttft_ms.p50"), map[string]*result.Result{"w": arm("w", ttft, e2el, 2, nil)},
		map[string]*result.Result{"w": arm("w", ttft, e2el, -1, nil)})
	s := e.Workloads[0]
	if s.ServerQueue || s.Phases[0].Baseline != 0 || s.Phases[1].Baseline != 10 || s.Carrier != verdict.PhaseNone {
		t.Errorf("split %+v", s)
	}
	if len(e.Findings) != 1 || e.Findings[0].Phase != verdict.PhaseNone || e.Findings[0].Measure != "" {
		t.Errorf("findings %+v", e.Findings)
	}
}

func TestExplainNamesWhatIsMissing(t *testing.T) {
	if e := Explain(regressed(), nil, nil); e != nil {
		t.Errorf("an explanation without a regression: %+v", e)
	}
	ok := arm("w", []float64{1, 1}, []float64{2, 2}, 0, nil)
	imported := &result.Result{Trials: []result.Trial{{Valid: true, Values: map[string]float64{keyE2EL: 2}}}}
	e := Explain(regressed("w/tpot_ms.p50", "gone/tpot_ms.p50"), map[string]*result.Result{"w": ok}, map[string]*result.Result{"w": imported})
	if len(e.Workloads) != 0 || len(e.Findings) != 0 || len(e.Warnings) != 2 ||
		!strings.Contains(e.Warnings[0], "w: no valid trial with ttft_ms.median in both arms") ||
		!strings.Contains(e.Warnings[1], "gone: an arm has no result file") {
		t.Errorf("explanation %+v", e)
	}
}

func TestCounterDeltas(t *testing.T) {
	pre := "vllm:num_preemptions_total.delta"
	wait := "num_requests_waiting.mean"
	b := arm("w", []float64{1, 1, 1, 1, 1}, []float64{2, 2, 2, 2, 2}, 0, map[string][]float64{
		pre: {0, 0, 0, 0, 0}, wait: {1, 2, 3, 4, 5}})
	c := arm("w", []float64{1, 1, 1, 1, 1}, []float64{2, 2, 2, 2, 2}, 0, map[string][]float64{
		pre: {30, 37, 41, 36, 40}, wait: {4, 5, 6, 7, 8}})
	c.Server.Engine = "sglang"
	got := map[string]verdict.CounterDelta{}
	for _, d := range counterDeltas(b, c) {
		got[d.Key] = d
	}
	p := got[pre]
	// 0 -> 37 per trial, ranges 0..0 and 30..41 apart: flagged; the chance
	// of that by trial order alone is 2 / C(10, 5) = 1/126.
	if !p.Flagged || p.Baseline != 0 || p.Candidate != 37 || p.CandMin != 30 || p.CandMax != 41 || math.Abs(p.FalseFlag-2.0/252) > 1e-12 {
		t.Errorf("preemptions %+v", p)
	}
	// SGLang's names: retracted requests are its preemptions, its waiting
	// requests sglang:num_queue_reqs. Ranges 1..5 and 4..8 overlap: not
	// flagged.
	w := got[wait]
	if p.Series != "sglang:num_retracted_requests_total" || w.Series != "sglang:num_queue_reqs" || w.Flagged || w.Candidate != 6 {
		t.Errorf("series %q, waiting %+v", p.Series, w)
	}
	if _, ok := got["kv_cache_usage_perc.max"]; ok {
		t.Errorf("a figure neither arm recorded is listed")
	}
	// Two trials an arm: never flagged, however far apart.
	b.Trials, c.Trials = b.Trials[:2], c.Trials[:2]
	for _, d := range counterDeltas(b, c) {
		if d.Flagged || d.FalseFlag != 0 {
			t.Errorf("flagged on two trials: %+v", d)
		}
	}
}

// TestAttachKernels: a profile's kernel diff reaches the comparison
// whether or not anything regressed (a passing run's profile still
// reports its kernels), and no profile leaves a passing comparison
// without an explanation.
func TestAttachKernels(t *testing.T) {
	k := &verdict.KernelDiff{}
	for _, tc := range []struct {
		name        string
		c           *verdict.Comparison
		kernels     *verdict.KernelDiff
		explanation bool
		findings    bool
	}{
		{"pass, no profile", regressed(), nil, false, false},
		{"pass, profile", regressed(), k, true, false},
		{"regression, profile", regressed("a/tpot_ms.p50"), k, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Attach(tc.c, map[string]*result.Result{}, map[string]*result.Result{}, tc.kernels)
			e := tc.c.Explanation
			if (e != nil) != tc.explanation {
				t.Fatalf("explanation %+v, want one: %v", e, tc.explanation)
			}
			if e == nil {
				return
			}
			if e.Schema != verdict.ExplanationSchema || e.Kernels != tc.kernels {
				t.Errorf("schema %q, kernels %p; want %q, %p", e.Schema, e.Kernels, verdict.ExplanationSchema, tc.kernels)
			}
			if got := len(e.Workloads)+len(e.Warnings) > 0; got != tc.findings {
				t.Errorf("workloads %v, warnings %v; want an account of the regression: %v", e.Workloads, e.Warnings, tc.findings)
			}
		})
	}
	Attach(nil, nil, nil, k) // no comparison: nothing to attach to, no panic
}
