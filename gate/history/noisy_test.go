package history

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// spiky is a 5-trial run whose TPOT spread is sd on the log scale (about a
// CV of sd) and whose throughput is steady.
func spiky(sd float64) *result.Result {
	r := baseFor(nightly(rand.New(rand.NewPCG(1, 1)), 1, 0, 0, 0, flat)[0])
	z := []float64{-1.2649, -0.6325, 0, 0.6325, 1.2649} // sample SD 1
	for i, v := range z {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: map[string]float64{
			"tpot_ms.p50": 20 * math.Exp(sd*v), "output_throughput": 2000, "success_rate": 1,
		}})
	}
	return r
}

func TestCheckNoiseRefusesASpreadOfFortyPercent(t *testing.T) {
	gated := []string{"tpot_ms.p50", "output_throughput", "success_rate"}
	p := verdict.DefaultPolicy()
	hist := FromLines("chat", nightly(rand.New(rand.NewPCG(4, 4)), 10, 5, 0.01, 0.02, flat))
	calib := map[string]verdict.Prior{"tpot_ms.p50": {WithinVar: sq(0.05), WithinDF: 40, Source: "calibration"}}
	for _, tc := range []struct {
		name   string
		sd     float64
		c      *Cell
		priors map[string]verdict.Prior
		source string // "" expects no finding
	}{
		{"40 % against history", 0.40, hist, nil, "history"},
		{"40 % with no history: assumed 5 %", 0.40, nil, nil, "assumed"},
		{"40 % against calibration", 0.40, hist, calib, "calibration"},
		{"usual 2 % passes", 0.02, hist, nil, ""},
		{"10 % is 5x a 2 % history", 0.10, hist, nil, "history"},
		{"10 % is 2x an assumed 5 %", 0.10, nil, nil, ""},
	} {
		got := CheckNoise(spiky(tc.sd), tc.c, tc.priors, gated, p)
		if tc.source == "" {
			if len(got) != 0 {
				t.Errorf("%s: refused: %v", tc.name, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Metric != "tpot_ms.p50" || got[0].Source != tc.source {
			t.Errorf("%s: findings %+v, want tpot_ms.p50 from %s", tc.name, got, tc.source)
			continue
		}
		if msg := got[0].String(); !strings.Contains(msg, "tpot_ms.p50 spread across trials is 40.0 %") && tc.sd == 0.40 {
			t.Errorf("%s: message %q", tc.name, msg)
		}
	}
}
