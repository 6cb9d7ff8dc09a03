package ab

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// experimentOf is an 8-block experiment of one workload cell with spec
// spec whose trials carry base's metrics, scaled by slow in arm B.
func experimentOf(spec string, base map[string]float64, slow float64) (*result.Result, *result.Result) {
	order, _ := Order(8, 0)
	w := result.Workload{Cell: "c", Hash: "h", Spec: json.RawMessage(spec)}
	a := &result.Result{Workload: w, Complete: true, Arm: "a", AB: &result.AB{Order: order}}
	b := &result.Result{Workload: w, Complete: true, Arm: "b", AB: &result.AB{Order: order}}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 1; i <= len(order); i++ {
		res, f := a, 1.0
		if order[i-1] == 'B' {
			res, f = b, slow
		}
		for j := 0; j < 2; j++ {
			v := map[string]float64{}
			for id, x := range base {
				v[id] = x * f * (1 + 0.002*r.NormFloat64())
			}
			res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials) + 1, Valid: true, Block: i, Values: v})
		}
	}
	return a, b
}

// TestCompareSelectsAsVerdict: a paired comparison gates exactly the
// metrics a stored-baseline comparison of the same files gates: the same
// substitute for a gated statistic neither arm carries (ttft_ms.p99.9,
// gated through p99, which a 20 % slowdown then fails), the same
// command-style filter for a capacity cell (the policy's serving metrics
// are not "in neither run"), and the same workload warnings (a gated
// statistic with no substitute leaves nothing gated: invalid).
func TestCompareSelectsAsVerdict(t *testing.T) {
	tail := verdict.DefaultPolicy()
	tail.Rules = []verdict.Rule{{Metric: "ttft_ms.p99.9", Gated: true, Tolerance: 0.08}}
	for _, tc := range []struct {
		name    string
		p       verdict.Policy
		spec    string
		carry   map[string]float64
		slow    float64
		want    verdict.Outcome
		metrics string
		subs    []verdict.Substitution
		warns   int
	}{
		{"substitute", tail, `{}`, map[string]float64{"ttft_ms.p99": 300, "ttft_ms.p50": 80}, 1.2,
			verdict.Regression, "ttft_ms.p99 ttft_ms.p50", []verdict.Substitution{{Missing: "ttft_ms.p99.9", Metric: "ttft_ms.p99", Tolerance: 0.08}}, 0},
		{"no substitute", tail, `{}`, map[string]float64{"ttft_ms.p50": 80}, 1.2,
			verdict.Invalid, "ttft_ms.p50", nil, 1},
		{"capacity cell", verdict.DefaultPolicy(), `{"kind":"capacity","gate":[{"metric":"capacity_rps","tolerance":0.05}]}`,
			map[string]float64{"capacity_rps": 40}, 0.8, verdict.Regression, "capacity_rps", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := experimentOf(tc.spec, tc.carry, tc.slow)
			c, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: tc.p})
			if err != nil {
				t.Fatal(err)
			}
			stored, err := verdict.Compare([]*result.Result{a}, []*result.Result{b}, tc.p, verdict.Look{})
			if err != nil {
				t.Fatal(err)
			}
			var ids, storedIDs []string
			for _, cell := range c.Cells {
				ids = append(ids, cell.Metric)
			}
			for _, cell := range stored.Cells {
				storedIDs = append(storedIDs, cell.Metric)
			}
			if got := strings.Join(ids, " "); got != tc.metrics || !reflect.DeepEqual(ids, storedIDs) {
				t.Errorf("paired cells %q, stored-baseline cells %v, want %q for both", got, storedIDs, tc.metrics)
			}
			w, sw := c.Workloads[0], stored.Workloads[0]
			if !reflect.DeepEqual(w.Substitutions, tc.subs) || !reflect.DeepEqual(sw.Substitutions, tc.subs) {
				t.Errorf("substitutions %+v (stored baseline %+v), want %+v", w.Substitutions, sw.Substitutions, tc.subs)
			}
			if len(w.Warnings) != tc.warns || !reflect.DeepEqual(w.Warnings, sw.Warnings) {
				t.Errorf("warnings %q (stored baseline %q), want %d", w.Warnings, sw.Warnings, tc.warns)
			}
			for i := range c.Cells {
				if got, want := c.Cells[i].Substitutes, stored.Cells[i].Substitutes; got != want {
					t.Errorf("%s substitutes %q, stored baseline %q", c.Cells[i].Metric, got, want)
				}
			}
			if c.Verdict != tc.want {
				t.Errorf("verdict %s, want %s; cells %+v", c.Verdict, tc.want, c.Cells)
			}
		})
	}
}
