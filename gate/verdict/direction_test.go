package verdict

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// worseWhenHigher says, from the unit alone (independently of the
// registry's Direction), whether a larger value is a slowdown. A metric
// whose registered direction disagrees would invert its gate.
func worseWhenHigher(t *testing.T, m metrics.Metric) bool {
	switch m.Unit {
	case "ms":
		return true // latencies
	case "req/s", "tok/s", "req/min", "tok/min", "ratio":
		return false // rates and success shares
	case "count":
		if m.ID == "failed" {
			return true
		}
		if m.ID == "capacity_concurrency" {
			return false // requests the server holds in flight within its SLO
		}
	}
	t.Fatalf("%s (%s): no independent direction known; extend this test", m.ID, m.Unit)
	return false
}

// TestDirectionEveryMetric injects a slowdown into each directional metric
// of the catalogue and expects a regression; a speed-up must be an
// improvement. Informational metrics must never be gated.
func TestDirectionEveryMetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, id := range metrics.All() {
		m := metrics.MustLookup(id)
		if m.Direction == metrics.Informational {
			p := oneSession()
			p.Rules = []Rule{{Metric: id, Gated: true}}
			if err := p.Validate(); err == nil {
				t.Errorf("%s is informational but a policy gating it validates", id)
			}
			continue
		}
		higherWorse := worseWhenHigher(t, m)
		for _, slow := range []bool{true, false} {
			up := slow == higherWorse // does the value go up?
			base, cand := directionArms(rng, id, up)
			p := oneSession()
			p.Rules = []Rule{{Metric: id, Gated: true}}
			cmp, err := Compare([]*result.Result{base}, []*result.Result{cand}, p, Look{})
			if err != nil {
				t.Fatal(err)
			}
			want := Improvement
			if slow {
				want = Regression
			}
			got := cellOf(cmp, "w", id)
			if got == nil || got.Outcome != want {
				t.Errorf("%s (%s), slowdown=%v: outcome %v, want %s", id, m.Direction, slow, got, want)
				continue
			}
			if slow && (got.Worse <= 0 || cmp.Verdict != Regression) {
				t.Errorf("%s: slowdown has Worse %.2f, verdict %s", id, got.Worse, cmp.Verdict)
			}
		}
	}
}

// directionArms builds a baseline and a candidate for one metric whose
// value moves clearly up or down.
func directionArms(rng *rand.Rand, id string, up bool) (base, cand *result.Result) {
	bv, cv := make([]float64, 5), make([]float64, 5)
	for i := range bv {
		if Absolute(id) {
			bv[i] = 0.95 + 0.002*rng.NormFloat64()
			cv[i] = bv[i] - 0.05
			if up {
				cv[i] = bv[i] + 0.04
			}
			continue
		}
		bv[i] = 100 * (1 + 0.01*rng.NormFloat64())
		cv[i] = 100 * (1 + 0.01*rng.NormFloat64()) * 0.75
		if up {
			cv[i] /= 0.75 * 0.75
		}
	}
	return newResult("w", map[string][]float64{id: bv}), newResult("w", map[string][]float64{id: cv})
}

func cellOf(c *Comparison, workload, metric string) *Cell {
	for i := range c.Cells {
		if c.Cells[i].Workload == workload && c.Cells[i].Metric == metric {
			return &c.Cells[i]
		}
	}
	return nil
}

func (c *Cell) String() string {
	return fmt.Sprintf("%s/%s %s worse %.2f [%.2f, %.2f] p %.3g", c.Workload, c.Metric, c.Outcome, c.Worse, c.CILow, c.CIHigh, c.PAdjusted)
}
