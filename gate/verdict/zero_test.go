package verdict

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestZeros covers the zero rules of zero.go, for a policy that gates
// request_goodput and tpot_ms.p50 (the gate of issue 14, defect 1: an SLO
// every request of the candidate misses drives request_goodput to 0).
func TestZeros(t *testing.T) {
	policy, err := FromConfig(PolicyConfig{Gated: []string{"request_goodput", "tpot_ms.p50"}})
	if err != nil {
		t.Fatal(err)
	}
	five := func(v float64) []float64 { return []float64{v, v * 1.004, v * 0.997, v * 1.002, v * 0.999} }
	some := func(v float64, zeros int) []float64 {
		out := five(v)
		for i := 0; i < zeros; i++ {
			out[i] = 0
		}
		return out
	}
	cases := []struct {
		name       string
		base, cand map[string][]float64
		metric     string  // the cell checked ("" none)
		outcome    Outcome // its outcome
		// verdict is the expected verdict; "" means any that neither
		// fails the gate nor depends on the noise model: not regression,
		// not invalid (the unchanged tpot_ms.p50 may pass or stay
		// undecided under the between-session noise).
		verdict  Outcome
		warning  string // substring of the cell's warnings ("" none checked)
		excluded string // substring of an excluded trial's reason; "" means none excluded
	}{
		{
			// Every candidate request misses the SLO: the largest possible
			// regression, certain, never a pass.
			name:    "goodput falls to zero",
			base:    map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12)},
			cand:    map[string][]float64{"request_goodput": five(0), "tpot_ms.p50": five(12)},
			metric:  "request_goodput",
			outcome: Regression, verdict: Regression,
			warning: "request_goodput is 0 in 5 of 5 candidate trials",
		},
		{
			// One collapsed trial out of five is still a fall to zero.
			name:    "goodput zero in one candidate trial",
			base:    map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12)},
			cand:    map[string][]float64{"request_goodput": some(8, 1), "tpot_ms.p50": five(12)},
			metric:  "request_goodput",
			outcome: Regression, verdict: Regression,
			warning: "1 of 5 candidate trials",
		},
		{
			name:    "goodput rises from zero",
			base:    map[string][]float64{"request_goodput": some(8, 2), "tpot_ms.p50": five(12)},
			cand:    map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12)},
			metric:  "request_goodput",
			outcome: Improvement,
			warning: "an improvement from zero",
		},
		{
			// The baseline was already flaky, the candidate collapsed.
			name:    "goodput zero in every candidate trial, some baseline trial",
			base:    map[string][]float64{"request_goodput": some(8, 1), "tpot_ms.p50": five(12)},
			cand:    map[string][]float64{"request_goodput": five(0), "tpot_ms.p50": five(12)},
			metric:  "request_goodput",
			outcome: Regression, verdict: Regression,
			warning: "0 in 1 of 5",
		},
		{
			// Zeros in some trials of both arms: no ratio, no claim.
			name:    "some zeros in both arms",
			base:    map[string][]float64{"request_goodput": some(8, 1), "tpot_ms.p50": five(12)},
			cand:    map[string][]float64{"request_goodput": some(8, 2), "tpot_ms.p50": five(12)},
			metric:  "request_goodput",
			outcome: Inconclusive, verdict: Inconclusive,
			warning: "zero value",
		},
		{
			// Zero in both arms: no ratio, no claim either way.
			name:    "zero in both arms",
			base:    map[string][]float64{"request_goodput": five(0), "tpot_ms.p50": five(12)},
			cand:    map[string][]float64{"request_goodput": five(0), "tpot_ms.p50": five(12)},
			metric:  "request_goodput",
			outcome: Inconclusive, verdict: Inconclusive,
			warning: "zero value",
		},
		{
			// A TTFT of zero is impossible: every candidate trial is
			// invalid, the workload is not compared, the gate cannot pass.
			name:     "latency zero in every candidate trial",
			base:     map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12), "ttft_ms.p50": five(40)},
			cand:     map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12), "ttft_ms.p50": five(0)},
			verdict:  Invalid,
			excluded: "ttft_ms.p50 is 0 ms, impossible",
		},
		{
			// One such trial is excluded with its reason; the rest compare.
			name:     "latency zero in one baseline trial",
			base:     map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12), "e2el_ms.p99": some(900, 1)},
			cand:     map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12), "e2el_ms.p99": five(900)},
			excluded: "e2el_ms.p99 is 0 ms",
		},
		{
			// A zero spread is sound data.
			name: "zero std is no error",
			base: map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12), "ttft_ms.std": five(0)},
			cand: map[string][]float64{"request_goodput": five(8), "tpot_ms.p50": five(12), "ttft_ms.std": five(0)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, c := newResult("w", tc.base), newResult("w", tc.cand)
			cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, policy, Look{})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.verdict != "" && cmp.Verdict != tc.verdict:
				t.Errorf("verdict %s, want %s", cmp.Verdict, tc.verdict)
			case tc.verdict == "" && (cmp.Verdict == Regression || cmp.Verdict == Invalid):
				t.Errorf("verdict %s, want neither regression nor invalid", cmp.Verdict)
			}
			if tc.metric != "" {
				cell := findCell(t, cmp, tc.metric)
				if cell.Outcome != tc.outcome {
					t.Errorf("%s: outcome %s, want %s (warnings %q)", tc.metric, cell.Outcome, tc.outcome, cell.Warnings)
				}
				if tc.warning != "" && !strings.Contains(strings.Join(cell.Warnings, "; "), tc.warning) {
					t.Errorf("%s: warnings %q, want one containing %q", tc.metric, cell.Warnings, tc.warning)
				}
				if tc.outcome == Regression && (cmp.Headline == nil || cmp.Headline.Metric != tc.metric || cell.PAdjusted != 0) {
					t.Errorf("headline %+v, p_adjusted %v: want the zero cell named, certain", cmp.Headline, cell.PAdjusted)
				}
			}
			var reasons []string
			for _, ex := range cmp.Workloads[0].Excluded {
				reasons = append(reasons, ex.Reason)
			}
			if got := strings.Join(reasons, "; "); tc.excluded == "" && got != "" || !strings.Contains(got, tc.excluded) {
				t.Errorf("excluded trials %q, want %q", reasons, tc.excluded)
			}
			// The inputs are the caller's: never modified.
			for _, tr := range append(b.Trials, c.Trials...) {
				if !tr.Valid {
					t.Fatal("Compare marked a trial of its input invalid")
				}
			}
		})
	}
}

// TestZeroRegressionInHolmFamily: the certain regression is one member of
// the family like any other, so the family's size is unchanged.
func TestZeroRegressionInHolmFamily(t *testing.T) {
	policy, err := FromConfig(PolicyConfig{Gated: []string{"request_goodput", "tpot_ms.p50"}})
	if err != nil {
		t.Fatal(err)
	}
	b := newResult("w", map[string][]float64{"request_goodput": {8, 8.1, 7.9}, "tpot_ms.p50": {12, 12.1, 11.9}})
	c := newResult("w", map[string][]float64{"request_goodput": {0, 0, 0}, "tpot_ms.p50": {12, 12.1, 11.9}})
	cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, policy, Look{Index: 1, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Family != 2 || cmp.Regressions != 1 || cmp.Verdict != Regression {
		t.Errorf("family %d, regressions %d, verdict %s; want 2, 1, regression", cmp.Family, cmp.Regressions, cmp.Verdict)
	}
	if got := findCell(t, cmp, "request_goodput"); got.Change != -100 || got.Worse != zeroWorse {
		t.Errorf("change %v worse %v, want -100 and %v (%%)", got.Change, got.Worse, zeroWorse)
	}
}

func findCell(t *testing.T, c *Comparison, metric string) Cell {
	t.Helper()
	for _, cell := range c.Cells {
		if cell.Metric == metric {
			return cell
		}
	}
	t.Fatalf("no cell %s in %+v", metric, c.Cells)
	return Cell{}
}
