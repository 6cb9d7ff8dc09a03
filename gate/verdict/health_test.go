package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// loaded gives every valid trial of r from index `from` on a health record
// of a host whose load average (5) exceeded its 2 CPUs.
func loaded(r *result.Result, from int) *result.Result {
	for i := range r.Trials {
		if i >= from {
			r.Trials[i].Health = &result.Health{CPUs: 2, Samples: []result.HealthSample{{Load1: 5}},
				Summary: result.HealthSummary{MaxLoad1: 5}}
		}
	}
	return r
}

// healthy gives every trial a record of an idle host.
func healthy(r *result.Result) *result.Result {
	for i := range r.Trials {
		r.Trials[i].Health = &result.Health{CPUs: 2, Samples: []result.HealthSample{{Load1: 0.5}},
			Summary: result.HealthSummary{MaxLoad1: 0.5}}
	}
	return r
}

// TestBusyRunnerNeverRegresses: a TTFT p99 +30 % that is a regression on a
// healthy runner is inconclusive ("runner busy") when candidate trials
// ran on a loaded host, even one of ten; the verdict is inconclusive and
// the cell's warning names the problem and says to rerun on an idle
// runner. A
// busy baseline does not hold the candidate's regression, and a busy
// candidate's pass stands.
func TestBusyRunnerNeverRegresses(t *testing.T) {
	arms := func(factor float64) (b, c *result.Result) {
		rng := rand.New(rand.NewPCG(21, 2))
		b = simArm(rng, "w", 10, 0.02, nil)
		c = simArm(rng, "w", 10, 0.02, map[string]float64{"ttft_ms.p99": factor})
		return healthy(b), healthy(c)
	}
	cellOf := func(cmp *Comparison) *Cell {
		for i := range cmp.Cells {
			if cmp.Cells[i].Metric == "ttft_ms.p99" {
				return &cmp.Cells[i]
			}
		}
		t.Fatal("no ttft_ms.p99 cell")
		return nil
	}
	tests := []struct {
		name    string
		factor  float64
		busy    func(b, c *result.Result)
		outcome Outcome
		verdict Outcome
	}{
		{"healthy runner regresses", 1.3, func(b, c *result.Result) {}, Regression, Regression},
		{"every candidate trial busy", 1.3, func(b, c *result.Result) { loaded(c, 0) }, Inconclusive, Inconclusive},
		{"one candidate trial busy", 1.3, func(b, c *result.Result) { loaded(c, 9) }, Inconclusive, Inconclusive},
		{"busy baseline only", 1.3, func(b, c *result.Result) { loaded(b, 0) }, Regression, Regression},
		{"busy candidate that passes", 1.0, func(b, c *result.Result) { loaded(c, 0) }, Pass, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := arms(tt.factor)
			tt.busy(b, c)
			cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, oneSession(), Look{})
			if err != nil {
				t.Fatal(err)
			}
			cell := cellOf(cmp)
			if cell.Outcome != tt.outcome || cmp.Verdict != tt.verdict {
				t.Fatalf("cell %s (%+.1f %%), verdict %s; want %s, %s", cell.Outcome, cell.Worse, cmp.Verdict, tt.outcome, tt.verdict)
			}
			held := cell.Limit == LimitRunner
			if held != (tt.outcome == Inconclusive) {
				t.Errorf("limit %q", cell.Limit)
			}
			if !held {
				return
			}
			if cmp.Regressions != 0 || cmp.Inconclusives == 0 || cmp.Headline == nil || cmp.Headline.Limit != LimitRunner {
				t.Errorf("counts: %d regressions, %d inconclusive, headline %+v", cmp.Regressions, cmp.Inconclusives, cmp.Headline)
			}
			// Only the held cell is undecided: no look adds trials for it
			// (more trials on a busy runner do not help).
			if cmp.Inconclusives != 1 || len(cmp.NeedsTrials()) != 0 {
				t.Errorf("%d inconclusive, NeedsTrials = %q: want only the held cell, needing no trials", cmp.Inconclusives, cmp.NeedsTrials())
			}
			w := strings.Join(cell.Warnings, "\n")
			if !strings.Contains(w, "runner busy") || !strings.Contains(w, "load above the 2 CPUs") || !strings.Contains(w, "rerun on an idle runner") {
				t.Errorf("cell warnings %q", cell.Warnings)
			}
		})
	}
}
