package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
)

var day0 = time.Date(2026, 10, 1, 3, 17, 0, 0, time.UTC)

// nightly returns n history lines of one cell, one per night from day0:
// tpot_ms.p50 around 20 ms and output_throughput around 2000 tok/s, each
// session's level offset by a between-session normal (sd between on the
// log scale) and its trials by a within one (sd within); level(i) is the
// log factor applied to session i (slower TPOT, lower throughput).
func nightly(rng *rand.Rand, n, trials int, between, within float64, level func(i int) float64) []baseline.HistoryLine {
	var out []baseline.HistoryLine
	for i := 0; i < n; i++ {
		off := between * rng.NormFloat64()
		l := baseline.HistoryLine{
			Schema:       baseline.HistorySchema,
			PromotedAt:   day0.Add(time.Duration(i) * 24 * time.Hour),
			StartedAt:    day0.Add(time.Duration(i)*24*time.Hour - time.Hour),
			GitSHA:       fmt.Sprintf("%07x%033d", 0xa00000+i, i),
			GitRef:       "refs/heads/main",
			WorkloadHash: "h-chat",
			Fingerprint:  map[string]string{"gpu.name": "sim", "gpu.count": "1"},
		}
		for k := 0; k < trials; k++ {
			f := level(i) + off + within*rng.NormFloat64()
			l.Trials = append(l.Trials, map[string]float64{
				"tpot_ms.p50":       20 * math.Exp(f),
				"output_throughput": 2000 * math.Exp(-f),
				"success_rate":      1,
			})
		}
		l.Summary = baseline.Summarise(l.Trials)
		out = append(out, l)
	}
	return out
}

func flat(int) float64 { return 0 }

// baseFor is the baseline file promoted from line l.
func baseFor(l baseline.HistoryLine) *result.Result {
	r := &result.Result{
		Schema:      result.Schema,
		Workload:    result.Workload{Name: "chat", Cell: "chat", Hash: l.WorkloadHash},
		Server:      result.Server{URL: "http://127.0.0.1:8000", Model: "m"},
		Fingerprint: map[string]string{"gpu.name": "sim", "gpu.count": "1"},
		StartedAt:   l.StartedAt,
		Complete:    true,
		Provenance:  &result.Provenance{GitSHA: l.GitSHA, PromotedAt: l.PromotedAt},
	}
	for i, t := range l.Trials {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: t})
	}
	return r
}

// candidate is a run of the cell whose TPOT and throughput are factor
// exp(level) worse than day0's level, with within-session noise only.
func candidate(rng *rand.Rand, trials int, within, level float64, at time.Time) *result.Result {
	r := baseFor(baseline.HistoryLine{WorkloadHash: "h-chat", StartedAt: at})
	r.Provenance = nil
	for k := 0; k < trials; k++ {
		f := level + within*rng.NormFloat64()
		r.Trials = append(r.Trials, result.Trial{Index: k, Valid: true, Values: map[string]float64{
			"tpot_ms.p50": 20 * math.Exp(f), "output_throughput": 2000 * math.Exp(-f), "success_rate": 1,
		}})
	}
	return r
}
