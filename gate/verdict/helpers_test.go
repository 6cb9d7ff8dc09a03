package verdict

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// newResult builds a complete result of cell with one valid trial per row
// of values (metric id -> per-trial values; all slices equally long).
func newResult(cell string, values map[string][]float64) *result.Result {
	r := &result.Result{
		Schema:      result.Schema,
		Workload:    result.Workload{Name: cell, Cell: cell, Hash: "hash-" + cell},
		Fingerprint: map[string]string{"gpu.name": "H100", "gpu.count": "1", "server.model": "m"},
		StartedAt:   t0,
		Complete:    true,
	}
	n := 0
	for _, v := range values {
		n = max(n, len(v))
	}
	for i := 0; i < n; i++ {
		t := result.Trial{Index: i, Valid: true, Values: map[string]float64{}}
		for id, v := range values {
			if i < len(v) {
				t.Values[id] = v[i]
			}
		}
		r.Trials = append(r.Trials, t)
	}
	return r
}

// typical are plausible centres of the default gated metrics.
var typical = map[string]float64{
	"ttft_ms.p50": 40, "ttft_ms.p99": 120,
	"tpot_ms.p50": 12, "tpot_ms.p99": 30,
	"e2el_ms.p50": 1500, "e2el_ms.p99": 3000,
	"output_throughput": 2500, "request_throughput": 9,
	"success_rate": 1,
}

// simArm draws n log-normal trials with coefficient of variation cv around
// typical values; factor multiplies one metric (the injected change).
func simArm(rng *rand.Rand, cell string, n int, cv float64, factor map[string]float64) *result.Result {
	sigma := math.Sqrt(math.Log1p(cv * cv))
	vals := map[string][]float64{}
	// Draw in a fixed metric order: ranging over the map would consume
	// the generator in a random order and make the seeds meaningless.
	for _, id := range DefaultGated {
		centre := typical[id]
		for i := 0; i < n; i++ {
			v := 1.0
			if id != "success_rate" {
				v = centre * math.Exp(sigma*rng.NormFloat64())
			}
			if f, ok := factor[id]; ok {
				v *= f
			}
			vals[id] = append(vals[id], v)
		}
	}
	return newResult(cell, vals)
}

func withSpec(r *result.Result, spec any) *result.Result {
	b, err := json.Marshal(spec)
	if err != nil {
		panic(err)
	}
	r.Workload.Spec = b
	return r
}

// oneSession is the default policy for arms measured in one server
// session (or with no between-session noise, like the simulated trials of
// most tests here): no between-session term is assumed.
func oneSession() Policy {
	p := DefaultPolicy()
	p.AssumedBetween = map[string]float64{"*": 0}
	return p
}
