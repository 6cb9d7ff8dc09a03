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
type Design struct {
	// Blocks of both arms (pairs = Blocks/2) and trials per block.
	Blocks, BlockTrials int
	// Within is the per-trial within-session variance, Between the
	// between-session (per-start) variance; BetweenDF the latter's degrees
	// of freedom when resident (0: taken as exact).
	Within, Between, BetweenDF float64
	Resident                   bool
	Absolute                   bool
	// Estimator of the pair differences; empty means DefaultEstimator.
	Estimator Estimator
	// Tolerance is the rule's tolerance (a fraction).
	Tolerance float64
	// Family is the number of gated cells in the Holm family; LookAlpha
	// Policy.Alpha/MaxLooks; PassAlpha the policy's.
	Family               int
	LookAlpha, PassAlpha float64
}

// noise is the variance of an estimate split into the part estimated from
// the pairs (pairs, on df degrees of freedom) and the part taken as given
// (fixed: the resident between-session term).
type noise struct{ pairs, df, fixed float64 }

func (n noise) se() float64 { return math.Sqrt(n.pairs + n.fixed) }

// satterthwaite is the degrees of freedom of the t test Compare runs;
// fixedDF is the fixed part's (0: exact).
func (n noise) satterthwaite(fixedDF float64) float64 {
	v := n.pairs + n.fixed
	den := n.pairs * n.pairs / n.df
	if fixedDF > 0 {
		den += n.fixed * n.fixed / fixedDF
	}
	if den == 0 || v == 0 {
		return 0
	}
	return v * v / den
}

// noise is the design's estimate variance.
func (d Design) noise() noise {
	k := d.Blocks / 2
	m := float64(max(d.BlockTrials, 1))
	v := 2 * (d.Between + d.Within/m)
	var fixed float64
	if d.Resident {
		v, fixed = 2*d.Within/m, 2*d.Between
	}
	est := d.Estimator
	if est == "" {
		est = DefaultEstimator
	}
	c, df := factor(est, k)
	return noise{pairs: v * c, df: df, fixed: fixed}
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

func (d Design) tol() float64 {
	if d.Absolute {
		return d.Tolerance
	}
	return math.Log1p(d.Tolerance)
}

func (d Design) scale(x float64) float64 {
	if d.Absolute {
		return x
	}
	return math.Expm1(x)
}

func (d Design) delta(change float64) float64 {
	if d.Absolute {
		return change
	}
	return math.Log1p(change)
}

func (d Design) rule() ruleAt {
	n := d.noise()
	df := n.satterthwaite(d.BetweenDF)
	return ruleAt{n: n, tH: verdict.TQuantile(1-d.LookAlpha/float64(max(d.Family, 1)), df),
		q: verdict.TQuantile(1-d.PassAlpha, df), tol: d.tol()}
}

// SE is the standard error of the design's estimate (test scale).
func (d Design) SE() float64 { return d.noise().se() }

// DF is the degrees of freedom of the design's t test.
func (d Design) DF() float64 { return d.noise().satterthwaite(d.BetweenDF) }

// Power is the chance that a true worsening of change (a fraction) is
// called a regression when it is the only changed cell (the first Holm
// step's threshold). Every chance is 0, and MDE and PassTolerance +Inf,
// for a design without a usable standard error (fewer than two pairs, no
// noise).
func (d Design) Power(change float64) float64 { return d.rule().power(d.delta(change)) }

// MDE is the smallest worsening found with 80 % power (a fraction).
func (d Design) MDE() float64 { return d.scale(d.rule().mde()) }

// PassChance is the chance an unchanged B passes at Tolerance.
func (d Design) PassChance() float64 { return d.rule().pass(0) }

// PassTolerance is the smallest tolerance at which an unchanged B passes
// in 90 % of runs (a fraction).
func (d Design) PassTolerance() float64 { return d.scale(d.rule().passTolerance()) }

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
	d := Design{BlockTrials: 1, Within: cell.Noise.Sigma * cell.Noise.Sigma / 2, Absolute: cell.Absolute,
		Family: c.Family, LookAlpha: c.LookAlpha, PassAlpha: c.Policy.PassAlpha}
	d.Tolerance = cell.Tolerance / 100
	if c.AB != nil {
		d.Blocks, d.Resident, d.Estimator = c.AB.Blocks, c.AB.Resident, Estimator(c.AB.Estimator)
	}
	if cell.Blocks != nil && len(cell.Blocks.Pairs) > 0 {
		// The pairs kept: a pair that lost a block carries no information.
		d.Blocks = 2 * len(cell.Blocks.Pairs)
	}
	if d.Resident {
		d.Between, d.BetweenDF = cell.Noise.Between*cell.Noise.Between, cell.Noise.BetweenDF
	}
	return d
}
