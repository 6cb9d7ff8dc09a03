package verdict

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestDecisionAgreesWithOutcome: the interval a cell was decided on never
// contradicts its outcome (issue 23). Over seeded comparisons with changes
// of every size, noise and looks: a family-wise interval wholly past the
// tolerance is a regression, wholly beyond minus the tolerance an
// improvement, wholly inside it a pass; a regression's interval excludes
// zero (it was significant); a pass carries the pass interval.
func TestDecisionAgreesWithOutcome(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	factors := []float64{0.8, 0.9, 0.97, 1, 1.02, 1.05, 1.1, 1.3}
	checked := map[Outcome]int{}
	for run := 0; run < 24; run++ {
		var b, c []*result.Result
		for w := 0; w < 4; w++ {
			cell := fmt.Sprintf("w%d", w)
			cv := []float64{0.01, 0.03, 0.08}[(run+w)%3]
			f := factors[(run*3+w)%len(factors)]
			b = append(b, simArm(rng, cell, 3+run%4, cv, nil))
			c = append(c, simArm(rng, cell, 3+run%3, cv, map[string]float64{"tpot_ms.p50": f, "output_throughput": 1 / f, "ttft_ms.p99": f * f}))
		}
		cmp, err := Compare(b, c, oneSession(), Look{Index: 1 + run%2, Max: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, cell := range cmp.Cells {
			if !cell.Gated {
				if cell.Decision != nil {
					t.Errorf("ungated %s/%s has a decision interval", cell.Workload, cell.Metric)
				}
				continue
			}
			d := cell.Decision
			if d == nil {
				t.Errorf("gated %s/%s (%s) has no decision interval", cell.Workload, cell.Metric, cell.Outcome)
				continue
			}
			checked[cell.Outcome]++
			name := fmt.Sprintf("run %d %s/%s %s %+v tol %g", run, cell.Workload, cell.Metric, cell.Outcome, *d, cell.Tolerance)
			if d.Low > d.High || !(d.Low <= cell.Worse && cell.Worse <= d.High) {
				t.Errorf("%s: interval does not hold the estimate %g", name, cell.Worse)
			}
			if cell.Outcome == Pass {
				if d.Rule != DecisionPass || d.High > cell.Tolerance || d.Low != cell.CILow || d.Level != cell.CILevel {
					t.Errorf("%s: a pass is decided on its pass interval inside the tolerance", name)
				}
				continue
			}
			if d.Rule != DecisionFamilyWise || d.Level < cell.CILevel {
				t.Errorf("%s: want a family-wise interval at least as wide as the pass interval", name)
			}
			switch {
			case d.Low > cell.Tolerance && cell.Outcome != Regression:
				t.Errorf("%s: interval wholly past the tolerance but not a regression", name)
			case d.High < -cell.Tolerance && cell.Outcome != Improvement:
				t.Errorf("%s: interval wholly beyond minus the tolerance but not an improvement", name)
			case d.High <= cell.Tolerance && cell.Outcome == Inconclusive:
				t.Errorf("%s: interval inside the tolerance but undecided", name)
			case cell.Outcome == Regression && d.Low < 0:
				t.Errorf("%s: a regression whose decision interval holds zero", name)
			case cell.Outcome == Improvement && d.High > 0:
				t.Errorf("%s: an improvement whose decision interval holds zero", name)
			}
		}
	}
	for _, o := range []Outcome{Regression, Inconclusive, Pass, Improvement} {
		if checked[o] == 0 {
			t.Errorf("no %s cell checked: the seeds no longer cover every outcome (%v)", o, checked)
		}
	}
}

// TestInvalidTrialsOfBothArms: a workload refused for the baseline's
// invalid trials still lists the candidate's (issue 23: the demo's
// comment showed only the baseline's), and its message names both arms.
func TestInvalidTrialsOfBothArms(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 2))
	b, c := simArm(rng, "w", 5, 0.02, nil), simArm(rng, "w", 5, 0.02, nil)
	for _, i := range []int{0, 1, 2} {
		b.Trials[i].Valid, b.Trials[i].InvalidReason = false, "client saturated"
	}
	for _, i := range []int{3, 4} {
		c.Trials[i].Valid, c.Trials[i].InvalidReason = false, "server died"
	}
	cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, oneSession(), Look{Index: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := cmp.Workloads[0]
	arms := map[string]int{}
	for _, e := range w.Excluded {
		arms[e.Arm]++
	}
	if w.Status != NoValidTrials || arms["baseline"] != 3 || arms["candidate"] != 2 {
		t.Errorf("status %s, excluded %v: want no-valid-trials with 3 baseline and 2 candidate trials", w.Status, arms)
	}
	if !strings.Contains(w.Message, "the baseline's 5") || !strings.Contains(w.Message, "the candidate's 5") {
		t.Errorf("message %q does not name both arms", w.Message)
	}
}
