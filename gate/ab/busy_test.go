package ab

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// busyHealth is a trial's health record on a 2-CPU host whose load
// average stood at 3: a busy runner by health's rules.
func busyHealth() *result.Health {
	return &result.Health{CPUs: 2, Samples: []result.HealthSample{{Load1: 3}}, Summary: result.HealthSummary{MaxLoad1: 3}}
}

// slowedPair is a 16-block experiment in which B is 10 % slower than A
// with 1 % noise: a clear regression at the 3 % tolerance.
func slowedPair(t *testing.T) (*result.Result, *result.Result) {
	t.Helper()
	order, err := Order(16, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(21, 21))
	vals := map[int][]float64{}
	for i := 1; i <= 16; i++ {
		lvl := 10.0
		if order[i-1] == 'B' {
			lvl = 11
		}
		vals[i] = []float64{lvl * (1 + 0.01*r.NormFloat64()), lvl * (1 + 0.01*r.NormFloat64())}
	}
	return pairOf(order, vals)
}

// TestCompareBusyRunner: the paired verdict holds a regression measured
// while the runner was busy as the stored-baseline verdict does
// (verdict.HoldBusyRunner): one busy trial of arm B makes it
// inconclusive, limit runner-busy, with the warning that says to rerun
// on an idle runner and no block plan (more blocks on the busy runner
// cannot lift it). A busy arm A holds nothing: it only makes B look
// better.
func TestCompareBusyRunner(t *testing.T) {
	tests := []struct {
		name     string
		busyArm  string
		want     verdict.Outcome
		wantHold bool
	}{
		{"healthy runner", "", verdict.Regression, false},
		{"arm B busy once", "b", verdict.Inconclusive, true},
		{"arm A busy once", "a", verdict.Regression, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := slowedPair(t)
			switch tt.busyArm {
			case "a":
				a.Trials[3].Health = busyHealth()
			case "b":
				b.Trials[3].Health = busyHealth()
			}
			c, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tpotOnly()})
			if err != nil {
				t.Fatal(err)
			}
			cell := c.Cells[0]
			if cell.Outcome != tt.want || c.Verdict != tt.want {
				t.Fatalf("cell %s, verdict %s (%+.1f %%); want %s", cell.Outcome, c.Verdict, cell.Change, tt.want)
			}
			held := cell.Limit == verdict.LimitRunner
			if held != tt.wantHold {
				t.Fatalf("limit %q; want runner-busy %v", cell.Limit, tt.wantHold)
			}
			if !held {
				return
			}
			w := strings.Join(cell.Warnings, "\n")
			if !strings.Contains(w, "runner busy: 1 of arm B's 16 valid trials ran while the runner was unhealthy (load above the 2 CPUs)") ||
				!strings.Contains(w, "rerun on an idle runner") {
				t.Errorf("warnings %q: want the runner-busy note naming arm B and what to do", w)
			}
			if cell.Plan != nil || (c.AB != nil && c.AB.Plan != nil) {
				t.Errorf("plan %+v / %+v: a busy runner's hold quotes no blocks", cell.Plan, c.AB.Plan)
			}
			if n := c.NeedsTrials(); len(n) != 0 {
				t.Errorf("NeedsTrials %v: more blocks cannot lift a busy runner's hold", n)
			}
		})
	}
}
