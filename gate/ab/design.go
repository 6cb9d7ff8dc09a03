package ab

import (
	"math"
	"sync"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Design is one gated cell of a paired A/B experiment, planned or run: its
// blocks, its noise and its rule. It predicts what Compare will decide:
// the power against a given change, the smallest tolerance an unchanged B
// passes, and how many blocks a change needs. Variances are on the test
// scale (of natural logs for relative metrics, so 0.02² is a CV of about
// 2 %), changes and tolerances fractions (0.05 = 5 %).
//
// The noise of one pair's difference d_k = B block − A block is
//
//	restarted blocks: 2·(Between + Within/BlockTrials)
//	resident servers: 2·Within/BlockTrials, plus 2·Between once
//
// With restarted blocks every block draws its own per-start offset, so the
// between-session variance is in every pair and shrinks with the number
// of pairs K: the estimate's standard error is about sqrt(2·(between² +
// within²/m)/K). This holds when every block restarts its arm's server
// (each start an independent draw of the offset), the blocks' trials are
// alike (m trials each, equal within-session noise) and the drift left
// after the estimator is small; the drift estimator spends one degree of
// freedom on the drift and its variance factor is K/(K²−S²) for an order
// whose pair signs sum to S (1/K when they cancel). With resident servers
// each arm is one session: its offset is the same in every pair, the
// pairs cannot see it, and 2·Between stays in the variance however many
// blocks run (as for a stored baseline of one session).
//
// Design cannot be verdict.Design itself: its standard error comes from
// the pairs (the estimator's variance factor depends on the block order
// and the drift fit, which live here), and with few pairs it predicts
// exactly (verdict.Exact) rather than by the stored-baseline shortcut. It
// shares verdict's Criterion (tolerance, scale, Holm family, alphas) and
// Prior, so both designs judge a cell by one rule and one noise record.
type Design struct {
	verdict.Criterion
	// Blocks of both arms (pairs = Blocks/2) and trials per block.
	Blocks, BlockTrials int
	// Noise.WithinVar is the per-trial within-session variance,
	// Noise.BetweenVar the between-session (per-start) variance, and
	// Noise.BetweenDF the latter's degrees of freedom when resident (0:
	// taken as exact); WithinDF is not used (the pairs carry their own).
	Noise    verdict.Prior
	Resident bool
	// Estimator of the pair differences; empty means DefaultEstimator.
	Estimator Estimator
}

// spread is the design's estimate variance: the pairs' part, on the
// estimator's degrees of freedom, and the fixed resident between-session
// part.
func (d Design) spread() verdict.Spread {
	k := d.Blocks / 2
	m := float64(max(d.BlockTrials, 1))
	v := 2 * (d.Noise.BetweenVar + d.Noise.WithinVar/m)
	var fixed float64
	if d.Resident {
		v, fixed = 2*d.Noise.WithinVar/m, 2*d.Noise.BetweenVar
	}
	est := d.Estimator
	if est == "" {
		est = DefaultEstimator
	}
	c, df := factor(est, k)
	return verdict.Spread{Est: v * c, DF: df, Fixed: fixed}
}

// factor is what the estimator makes of one pair's variance for K pairs
// of the fixed order (the variance factor c, se² = v·c) and its degrees of
// freedom, with the same fallbacks as estimate.
func factor(e Estimator, k int) (float64, float64) {
	if k < 2 {
		return math.Inf(1), 1
	}
	key := factorKey{e, k}
	factorMu.Lock()
	f, ok := factors[key]
	factorMu.Unlock()
	if !ok {
		f = computeFactor(e, k)
		factorMu.Lock()
		factors[key] = f
		factorMu.Unlock()
	}
	return f[0], f[1]
}

// factors caches factor: it depends on the estimator and the pairs alone,
// and every plan asks for it at a dozen block counts. At most three
// estimators times maxBlocks/2 pairs are ever stored.
var (
	factorMu sync.Mutex
	factors  = map[factorKey][2]float64{}
)

type factorKey struct {
	e Estimator
	k int
}

func computeFactor(e Estimator, k int) [2]float64 {
	order, _ := Order(2*k, 0)
	s := pairSigns(order)
	quadOf := make([]int, k)
	for i := range quadOf {
		quadOf[i] = i / 2
	}
	f, _ := estimate(make([]float64, k), s, e, quadOf)
	return [2]float64{f.c, f.df}
}

func (d Design) rule() verdict.Exact { return d.ExactAt(d.spread(), d.Noise.BetweenDF) }

// SE is the standard error of the design's estimate (test scale).
func (d Design) SE() float64 { return d.spread().SE() }

// DF is the degrees of freedom of the design's t test.
func (d Design) DF() float64 { return d.spread().Satterthwaite(d.Noise.BetweenDF) }

// Power is the chance that a true worsening of change (a fraction) is
// called a regression when it is the only changed cell (the first Holm
// step's threshold). Every chance is 0, and MDE and PassTolerance +Inf,
// for a design without a usable standard error (fewer than two pairs, no
// noise).
func (d Design) Power(change float64) float64 { return d.rule().Power(d.ToTest(change)) }

// MDE is the smallest worsening found with 80 % power (a fraction).
func (d Design) MDE() float64 { return d.FromTest(d.rule().MDE()) }

// PassChance is the chance an unchanged B passes at Tolerance.
func (d Design) PassChance() float64 { return d.rule().Pass(0) }

// PassTolerance is the smallest tolerance at which an unchanged B passes
// in 90 % of runs (a fraction).
func (d Design) PassTolerance() float64 { return d.FromTest(d.rule().PassTolerance()) }

// maxBlocks bounds BlocksFor's search: 400 blocks is days of restarts.
const maxBlocks = 400

// BlocksFor is the smallest number of blocks (a multiple of four, so every
// quad is complete) at which a true worsening of change is found with at
// least the given power, the design's other fields as they are; 0 when no
// number up to 400 reaches it (with resident servers the between-session
// term can make a change undetectable at any number of blocks).
func (d Design) BlocksFor(change, power float64) int {
	return smallestBlocks(func(n int) bool {
		d.Blocks = n
		return d.Power(change) >= power
	})
}

// smallestBlocks is the smallest multiple of four up to maxBlocks for
// which ok holds, 0 when none does. ok must be monotone in the blocks (a
// design's chances only grow with more pairs: the standard error shrinks
// and the degrees of freedom grow), so a bisection over the multiples
// finds it in a few evaluations rather than a hundred: a comparison plans
// every undecided cell, and the seeded tests judge thousands.
func smallestBlocks(ok func(n int) bool) int {
	lo, hi := 0, maxBlocks/4 // in quads: ok(4·hi) is the question
	if !ok(4 * hi) {
		return 0
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(4 * mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return 4 * hi
}

// DesignOf is the design of a cell Compare decided, with its measured
// noise: BlocksFor on it says how many blocks the cell would need, Power
// its chance at any change, Blocks the blocks of the pairs kept. The measured pair variance is carried as the
// within-session variance of one-trial blocks (restarted) or beside the
// measured between-session term (resident).
func DesignOf(c *verdict.Comparison, cell *verdict.Cell) Design {
	d := Design{BlockTrials: 1, Noise: verdict.Prior{WithinVar: cell.Noise.Sigma * cell.Noise.Sigma / 2},
		Criterion: verdict.Criterion{Absolute: cell.Absolute, Tolerance: cell.Tolerance / 100,
			Family: c.Family, LookAlpha: c.LookAlpha, PassAlpha: c.Policy.PassAlpha}}
	if c.AB != nil {
		d.Blocks, d.Resident, d.Estimator = c.AB.Blocks, c.AB.Resident, Estimator(c.AB.Estimator)
	}
	if cell.Blocks != nil && len(cell.Blocks.Pairs) > 0 {
		// The pairs kept: a pair that lost a block carries no information.
		d.Blocks = 2 * len(cell.Blocks.Pairs)
	}
	if d.Resident {
		d.Noise.BetweenVar, d.Noise.BetweenDF = cell.Noise.Between*cell.Noise.Between, cell.Noise.BetweenDF
	}
	return d
}
