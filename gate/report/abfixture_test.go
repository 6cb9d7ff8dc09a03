package report

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The A/B fixtures are interleaved experiments judged by gate/ab's paired
// verdict, stored as their comparison like the others (-fixtures
// regenerates them), so the A/B report is tested on what `perfgate ab`
// really hands it: block pairs, "pairs" noise, plans on undecided cells,
// arms without a stored baseline.

// synthAB makes both arms of one workload cell of an experiment in order:
// m trials per block, each block's server start off by a log-normal
// factor of CV sessionCV (the per-start offset), arm B's values scaled by
// scale.
func synthAB(rng *rand.Rand, cell, hash, order string, m int, scale map[string]float64, sessionCV float64) (a, b *result.Result) {
	a, b = synthCV(rng, cell, hash, 0, nil, false, 0), synthCV(rng, cell, hash, 0, nil, true, 0)
	x := &result.AB{Order: order}
	for i := range order {
		x.Blocks = append(x.Blocks, result.Block{Index: i + 1, Arm: string(rune(order[i] + 'a' - 'A')), StartupS: 40 + math.Round(4*rng.Float64()*100)/100,
			StartedAt: fixtureStart.Add(time.Duration(i) * 3 * time.Minute), Trials: m})
	}
	for _, r := range []*result.Result{a, b} {
		r.Provenance, r.AB, r.Source = nil, x, "perfgate ab"
		r.StartedAt, r.FinishedAt = fixtureStart, fixtureStart.Add(time.Duration(len(order))*3*time.Minute)
	}
	a.Arm, b.Arm = "a", "b"
	for i := range order {
		r, sc := a, map[string]float64(nil)
		if order[i] == 'B' {
			r, sc = b, scale
		}
		offset := math.Exp(sessionCV * rng.NormFloat64())
		for _, t := range synthCV(rng, cell, hash, m, sc, r == b, 0.01).Trials {
			for id, v := range t.Values {
				switch {
				case id == "success_rate" || strings.HasPrefix(id, "total_"):
				case strings.HasSuffix(id, "throughput") || id == "qpm" || id == "tpm":
					t.Values[id] = v / offset // a slower start serves less
				default:
					t.Values[id] = v * offset
				}
			}
			t.Index, t.Block = len(r.Trials), i+1
			r.Trials = append(r.Trials, t)
		}
	}
	return a, b
}

func abFixtureScenarios() map[string]func(*rand.Rand) (a, b []*result.Result) {
	slow := map[string]float64{"tpot_ms.p50": 1.1, "tpot_ms.p90": 1.1, "tpot_ms.p95": 1.1, "tpot_ms.p99": 1.1,
		"itl_ms.p50": 1.1, "itl_ms.p90": 1.1, "itl_ms.p95": 1.1, "itl_ms.p99": 1.1}
	return map[string]func(*rand.Rand) (a, b []*result.Result){
		"ab-regression": func(rng *rand.Rand) (a, b []*result.Result) {
			order, _ := ab.Order(ab.DefaultBlocks, 0)
			a0, b0 := synthAB(rng, "cx8-4000-1000-c16", "h1", order, 2, slow, 0.005)
			a1, b1 := synthAB(rng, "short|<chat>", "h2", order, 2, nil, 0.005)
			a1.AB, b1.AB = a0.AB, a0.AB // one experiment: every cell ran in the same blocks
			// A hostile error body and an invalid trial in arm B.
			b0.Trials[2].Failed, b0.Trials[2].Errors = 2, map[string]int{"http_500": 2}
			b0.Trials[2].ErrorSamples = map[string]string{"http_500": "</details>\n# boom | `rm -rf` [x](http://evil) @team"}
			b0.Trials = append(b0.Trials, result.Trial{Index: len(b0.Trials), Block: 16, Valid: false, InvalidReason: "server died: <EOF>", Completed: 10, Failed: 54, Values: map[string]float64{}})
			return []*result.Result{a0, a1}, []*result.Result{b0, b1}
		},
		"ab-undecided": func(rng *rand.Rand) (a, b []*result.Result) {
			// Eight blocks of a runner whose starts differ by 3 %: too few
			// pairs to decide a 3 % tolerance.
			a0, b0 := synthAB(rng, "rag-32k", "h4", "ABBABAAB", 2, map[string]float64{"ttft_ms.p99": 1.05}, 0.03)
			return []*result.Result{a0}, []*result.Result{b0}
		},
	}
}

// abFixtureVerdicts are the verdicts the A/B scenarios are drawn until
// they give (synth's draws follow map order, so a seed alone does not
// fix them).
var abFixtureVerdicts = map[string]verdict.Outcome{"ab-regression": verdict.Regression, "ab-undecided": verdict.Inconclusive}

// writeABFixtures regenerates the A/B fixtures with ab.Compare.
func writeABFixtures(t *testing.T) {
	for name, gen := range abFixtureScenarios() {
		var a, b []*result.Result
		var cmp *verdict.Comparison
		for seed := uint64(1); cmp == nil || cmp.Verdict != abFixtureVerdicts[name]; seed++ {
			if seed > 50 {
				t.Fatalf("%s: no draw of 50 gave a %s", name, abFixtureVerdicts[name])
			}
			a, b = gen(rand.New(rand.NewPCG(seed, 2)))
			var err error
			if cmp, err = ab.Compare(a, b, ab.Options{Policy: verdict.DefaultPolicy()}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		data, err := json.MarshalIndent(fixture{a, b, cmp}, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name+".fixture.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// abFixture reads a stored A/B experiment as `perfgate ab` hands it to
// the report: arm A's results on the baseline side under DIR/a, arm B's
// under DIR/b, and the design from the results.
func abFixture(t *testing.T, name string) *Data {
	t.Helper()
	d := loadFixture(t, name)
	d.FullReport = "ab-out/report.md"
	for cell, r := range d.Baselines {
		d.BaselinePaths[cell] = "ab-out/a/" + result.FileName(cell)
		d.AB = &AB{Order: r.AB.Order, Seed: r.AB.Seed, Blocks: r.AB.Blocks} // every cell's is the experiment's
	}
	for cell := range d.Candidates {
		d.ResultPaths[cell] = "ab-out/b/" + result.FileName(cell)
	}
	return d
}
