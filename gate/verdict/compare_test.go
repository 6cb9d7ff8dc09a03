package verdict

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

func arms(seed uint64, workloads, n int, cv float64, inject string, factor float64) (b, c []*result.Result) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for w := 0; w < workloads; w++ {
		cell := fmt.Sprintf("w%02d", w)
		b = append(b, simArm(rng, cell, n, cv, nil))
		var f map[string]float64
		if w == 0 && inject != "" {
			f = map[string]float64{inject: factor}
		}
		c = append(c, simArm(rng, cell, n, cv, f))
	}
	return b, c
}

func TestCompareSmoke(t *testing.T) {
	b, c := arms(1, 10, 5, 0.02, "tpot_ms.p50", 1.08)
	cmp, err := Compare(b, c, oneSession(), Look{})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Verdict != Regression || cmp.Headline == nil || cmp.Headline.Metric != "tpot_ms.p50" || cmp.Headline.Workload != "w00" {
		t.Fatalf("verdict %s headline %+v", cmp.Verdict, cmp.Headline)
	}
	t.Logf("headline %+v", *cmp.Headline)
	t.Logf("counts r%d i%d imp%d p%d", cmp.Regressions, cmp.Inconclusives, cmp.Improvements, cmp.Passes)
}
