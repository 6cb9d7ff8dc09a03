package bisect

import (
	"context"
	"math/rand/v2"
	"testing"
)

// The seeded error rates and costs of the search on the trial-level model
// (model_test.go). Each test logs its measured rates (go test -v -run
// Seeded ./gate/bisect); docs/bisect.md quotes them.

// searches is the number of seeded searches per scenario: 200, or 60 in a
// reduced run (-short, the race detector).
func searches() int {
	if testing.Short() || raceBuild {
		return 60
	}
	return 200
}

// culpritAt returns factors for n commits with the given commits' own
// factors.
func culpritAt(n int, at map[int]float64) []float64 {
	f := make([]float64, n+1)
	for i := range f {
		f[i] = 1
	}
	for i, x := range at {
		f[i] = x
	}
	return f
}

// rates is what a scenario's seeded searches did.
type rates struct {
	n                      int
	right, wrong, notFound int // named exactly the planted culprit(s) / any other / none
	status                 map[Status]int
	blocks, gpuS           float64 // means per search
	naiveRight             int
	naiveGPUS              float64
}

func (r rates) rate(k int) float64 { return float64(k) / float64(r.n) }

// scenario runs n seeded searches of the model made by plant (from the
// search's own seeded draw) and judges each with right: whether the
// culprits it named are the planted ones.
func scenario(n int, o Options, plant func(r *rand.Rand) (model, []int)) rates {
	rs := rates{n: n, status: map[Status]int{}}
	for i := 0; i < n; i++ {
		r := rand.New(rand.NewPCG(uint64(i), 0xb15))
		m, want := plant(r)
		b := newModelBench(m, uint64(i))
		res, err := Search(context.Background(), commitsOf(len(m.Factors)-1), b, o)
		if err != nil {
			panic(err)
		}
		rs.status[res.Status]++
		rs.blocks += float64(res.Blocks) / float64(n)
		rs.gpuS += res.GPUSeconds / float64(n)
		switch {
		case len(res.Culprits) == 0:
			rs.notFound++
		case sameCulprits(res.Culprits, want):
			rs.right++
		default:
			if !subsetOf(res.Culprits, want) {
				rs.wrong++
			}
		}
		if len(want) == 1 {
			got, cost := naiveBisect(m, rand.New(rand.NewPCG(uint64(i), 0x7a1)))
			if got == want[0] {
				rs.naiveRight++
			}
			rs.naiveGPUS += cost / float64(n)
		}
	}
	return rs
}

func sameCulprits(cs []Culprit, want []int) bool {
	if len(cs) != len(want) {
		return false
	}
	return subsetOf(cs, want)
}

// subsetOf reports whether every named culprit is a planted one (a search
// that named one part of a spread change named no wrong commit).
func subsetOf(cs []Culprit, want []int) bool {
	for _, c := range cs {
		ok := false
		for _, w := range want {
			ok = ok || c.Index == w
		}
		if !ok {
			return false
		}
	}
	return true
}

func (r rates) log(t *testing.T, name string) {
	t.Helper()
	t.Logf("%s: %d searches: right %.1f %%, wrong %.1f %%, none %.1f %% %v; mean %.0f blocks, %.1f GPU h; naive git bisect right %.1f %% at %.2f GPU h",
		name, r.n, 100*r.rate(r.right), 100*r.rate(r.wrong), 100*r.rate(r.notFound), r.status, r.blocks, r.gpuS/3600, 100*r.rate(r.naiveRight), r.naiveGPUS/3600)
}

// oneCulprit plants one commit with a decode factor among n commits.
func oneCulprit(n int, factor float64) func(*rand.Rand) (model, []int) {
	return func(r *rand.Rand) (model, []int) {
		c := 1 + r.IntN(n)
		return gpuRunner(culpritAt(n, map[int]float64{c: factor})), []int{c}
	}
}

// TestSeededOneCulprit: a 5 % decode slowdown planted at a random commit
// among 32, 2 % trial noise, 2 % per-start offsets: the search names it in
// at least 95 % of searches and a wrong commit in no more than the bound.
func TestSeededOneCulprit(t *testing.T) {
	o := Options{Metric: "tpot_ms.p50"}
	rs := scenario(searches(), o, oneCulprit(32, 1.05))
	rs.log(t, "one culprit, 5 % among 32")
	if rs.rate(rs.right) < 0.95 {
		t.Errorf("culprit named in %.1f %% of searches, want >= 95 %%", 100*rs.rate(rs.right))
	}
	if rs.rate(rs.wrong) > DefaultAlpha {
		t.Errorf("wrong commit named in %.1f %% of searches, above the bound %.0f %%", 100*rs.rate(rs.wrong), 100*DefaultAlpha)
	}
}

// TestSeededTwoCommits: a 10 % slowdown spread over two commits (5 % each,
// at random places among 32): the search splits where a step finds both
// halves worse and names both, each with its share.
func TestSeededTwoCommits(t *testing.T) {
	o := Options{Metric: "tpot_ms.p50"}
	rs := scenario(searches(), o, func(r *rand.Rand) (model, []int) {
		c1 := 1 + r.IntN(32)
		c2 := 1 + r.IntN(31)
		if c2 >= c1 {
			c2++
		}
		return gpuRunner(culpritAt(32, map[int]float64{c1: 1.05, c2: 1.05})), sorted(c1, c2)
	})
	rs.log(t, "two commits, 5 % + 5 % among 32")
	if rs.rate(rs.right) < 0.80 {
		t.Errorf("both commits named in %.1f %% of searches, want >= 80 %%", 100*rs.rate(rs.right))
	}
	if rs.rate(rs.wrong) > DefaultAlpha {
		t.Errorf("a wrong commit named in %.1f %% of searches, above the bound %.0f %%", 100*rs.rate(rs.wrong), 100*DefaultAlpha)
	}
}

func sorted(a, b int) []int {
	if a > b {
		a, b = b, a
	}
	return []int{a, b}
}

// TestSeededImprovementAndRegression: an 8 % slowdown and a 3 %
// speed-up at random places in one range: the search follows the
// regression past the improvement and names the regression alone.
func TestSeededImprovementAndRegression(t *testing.T) {
	o := Options{Metric: "tpot_ms.p50"}
	rs := scenario(searches(), o, func(r *rand.Rand) (model, []int) {
		bad := 1 + r.IntN(32)
		good := 1 + r.IntN(31)
		if good >= bad {
			good++
		}
		return gpuRunner(culpritAt(32, map[int]float64{bad: 1.08, good: 0.97})), []int{bad}
	})
	rs.log(t, "8 % regression and 3 % improvement among 32")
	if rs.rate(rs.right) < 0.95 {
		t.Errorf("the regression named in %.1f %% of searches, want >= 95 %%", 100*rs.rate(rs.right))
	}
	if rs.rate(rs.wrong) > DefaultAlpha {
		t.Errorf("a wrong commit (the improvement or another) named in %.1f %% of searches, above the bound %.0f %%", 100*rs.rate(rs.wrong), 100*DefaultAlpha)
	}
}

// TestSeededNoDifference: ends that do not differ now (the step the
// history saw was noise): the search says so after the ends' experiment
// alone, spending at most its most blocks, and names no commit beyond the
// bound.
func TestSeededNoDifference(t *testing.T) {
	o := Options{Metric: "tpot_ms.p50"}
	o = o.withDefaults()
	rs := scenario(searches(), o, func(*rand.Rand) (model, []int) {
		return gpuRunner(culpritAt(32, nil)), nil
	})
	rs.log(t, "no difference among 32")
	if got := rs.rate(rs.status[NoDifference]); got < 0.90 {
		t.Errorf("no difference said in %.1f %% of searches, want >= 90 %%", 100*got)
	}
	if rs.rate(rs.wrong) > DefaultAlpha {
		t.Errorf("a commit named in %.1f %% of searches of a range without change, above the bound %.0f %%", 100*rs.rate(rs.wrong), 100*DefaultAlpha)
	}
	if rs.status[NoDifference] == rs.n && rs.blocks > float64(o.MaxBlocks) {
		t.Errorf("mean %.0f blocks spent on ends that do not differ, want at most the ends' %d", rs.blocks, o.MaxBlocks)
	}
}

// TestSeededWrongCommitBound: the stated bound holds where wrong turns are
// likeliest, a change no larger than the tolerance (3 %) among 32
// commits, where a search that names anything can only be right or wrong
// by a decision the bound covers.
func TestSeededWrongCommitBound(t *testing.T) {
	o := Options{Metric: "tpot_ms.p50", Tolerance: 0.02}
	rs := scenario(searches(), o, oneCulprit(32, 1.03))
	rs.log(t, "one culprit, 3 % among 32, tolerance 2 %")
	if rs.rate(rs.wrong) > DefaultAlpha {
		t.Errorf("wrong commit named in %.1f %% of searches, above the bound %.0f %%", 100*rs.rate(rs.wrong), 100*DefaultAlpha)
	}
}

// TestSeededNaiveBisect: git bisect run over one run per commit, on the
// same model, walks to a wrong commit in most searches; the search spends
// more GPU time to be right.
func TestSeededNaiveBisect(t *testing.T) {
	rs := scenario(searches(), Options{Metric: "tpot_ms.p50"}, oneCulprit(32, 1.05))
	if rs.rate(rs.naiveRight) > 0.5 {
		t.Errorf("naive bisect right in %.1f %% of searches: the model is not noisy enough to show what the search is for", 100*rs.rate(rs.naiveRight))
	}
	if rs.rate(rs.right) < rs.rate(rs.naiveRight)+0.4 {
		t.Errorf("search right in %.1f %%, naive in %.1f %%", 100*rs.rate(rs.right), 100*rs.rate(rs.naiveRight))
	}
	t.Logf("GPU time: search %.1f h, naive %.2f h (%.0fx); wrong commit: search %.1f %%, naive %.1f %%",
		rs.gpuS/3600, rs.naiveGPUS/3600, rs.gpuS/rs.naiveGPUS, 100*rs.rate(rs.wrong), 100*(1-rs.rate(rs.naiveRight)))
}
