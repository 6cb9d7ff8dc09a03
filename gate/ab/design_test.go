package ab

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestDefaultDesign is the measurement behind DefaultBlocks and
// DefaultBlockTrials. On the model's runner (30-second trials, 60-second
// starts) with the per-start offset of CV 2 % the published studies show,
// it predicts, for each design of up to 32 blocks of 1-4 trials, the chance
// that an unchanged B passes the two binding gated cells at look 1 of 3
// in the default family of nine: TPOT p50 (the quietest statistic against
// the tightest tolerance, 3 %) and TTFT p99 (the noisiest, 6 %). The
// default is the cheapest design in server-seconds with at least two
// trials per block (one invalid trial must not lose its pair, and the
// block's spread stays visible) that passes both in at least 90 % of runs;
// TestSeededPerStartOffset confirms its rates by simulation.
func TestDefaultDesign(t *testing.T) {
	type cand struct {
		blocks, trials int
		cost           float64
	}
	var best *cand
	for m := 1; m <= 4; m++ {
		for n := 8; n <= 32; n += 4 {
			tpot := Design{Blocks: n, BlockTrials: m, Noise: verdict.Prior{WithinVar: lv(jitterDecode) + lv(0.004), BetweenVar: lv(0.02)}, Criterion: verdict.Criterion{Tolerance: 0.03, Family: 9, LookAlpha: 0.01 / 3, PassAlpha: 0.1}}
			ttft := Design{Blocks: n, BlockTrials: m, Noise: verdict.Prior{WithinVar: lv(jitterPrefill) + lv(0.035), BetweenVar: lv(0.02)}, Criterion: verdict.Criterion{Tolerance: 0.06, Family: 9, LookAlpha: 0.01 / 3, PassAlpha: 0.1}}
			cost := float64(n) * (realistic.StartupS + float64(m)*realistic.TrialS)
			ok := tpot.PassChance() >= 0.9 && ttft.PassChance() >= 0.9
			t.Logf("%2d blocks x %d trials: %5.0f server-s, pass TPOT p50 %.1f%%, TTFT p99 %.1f%%, power vs TPOT +5%% %.1f%%, MDE %.1f%%",
				n, m, cost, 100*tpot.PassChance(), 100*ttft.PassChance(), 100*tpot.Power(0.05), 100*tpot.MDE())
			if ok && m >= 2 && (best == nil || cost < best.cost) {
				best = &cand{n, m, cost}
			}
		}
	}
	if best == nil || best.blocks != DefaultBlocks || best.trials != DefaultBlockTrials {
		t.Errorf("the cheapest design that passes is %+v, the default is %d x %d", best, DefaultBlocks, DefaultBlockTrials)
	}
}

// TestStandardError checks the design's standard error against the
// formula of the issue, sqrt(2·(between² + within²/m)/K), for restarted
// blocks with the pair signs cancelling (K even), and that resident servers
// keep 2·between² whatever the number of blocks.
func TestStandardError(t *testing.T) {
	for _, tc := range []struct{ blocks, m int }{{8, 1}, {16, 2}, {24, 3}, {40, 5}} {
		d := Design{Blocks: tc.blocks, BlockTrials: tc.m, Noise: verdict.Prior{WithinVar: 0.01 * 0.01, BetweenVar: 0.02 * 0.02}}
		k := float64(tc.blocks / 2)
		want := math.Sqrt(2 * (0.02*0.02 + 0.01*0.01/float64(tc.m)) / k)
		if got := d.SE(); math.Abs(got-want) > 1e-12 {
			t.Errorf("%d blocks x %d: SE %v, want %v", tc.blocks, tc.m, got, want)
		}
		if df := d.DF(); df != k-2 {
			t.Errorf("%d blocks: df %v, want K-2 = %v", tc.blocks, df, k-2)
		}
		d.Resident = true
		want = math.Sqrt(2*0.01*0.01/float64(tc.m)/k + 2*0.02*0.02)
		if got := d.SE(); math.Abs(got-want) > 1e-12 {
			t.Errorf("resident %d blocks x %d: SE %v, want %v", tc.blocks, tc.m, got, want)
		}
	}
	// Six blocks: pair signs + - - sum to -1, so the drift fit's variance
	// factor is K/(K²-1) = 3/8; with fewer than four pairs the plain mean.
	d := Design{Blocks: 6, BlockTrials: 1, Noise: verdict.Prior{WithinVar: 1}}
	if got, want := d.SE(), math.Sqrt(2.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("6 blocks: SE %v, want the plain mean's %v", got, want)
	}
	d.Blocks = 10
	if got, want := d.SE(), math.Sqrt(2*5.0/24); math.Abs(got-want) > 1e-12 {
		t.Errorf("10 blocks: SE %v, want %v", got, want)
	}
}

// TestDesignWithoutPairs: a design of fewer than two pairs, or without
// noise, predicts nothing rather than NaN.
func TestDesignWithoutPairs(t *testing.T) {
	for _, d := range []Design{
		{Blocks: 2, BlockTrials: 2, Noise: verdict.Prior{WithinVar: 1e-4, BetweenVar: 4e-4}, Criterion: verdict.Criterion{Tolerance: 0.03, Family: 1, LookAlpha: 0.01, PassAlpha: 0.1}},
		{Blocks: 0, Criterion: verdict.Criterion{Tolerance: 0.03, Family: 1, LookAlpha: 0.01, PassAlpha: 0.1}},
		{Blocks: 16, BlockTrials: 2, Criterion: verdict.Criterion{Tolerance: 0.03, Family: 1, LookAlpha: 0.01, PassAlpha: 0.1}},
	} {
		if p, c := d.Power(0.05), d.PassChance(); p != 0 || c != 0 {
			t.Errorf("%+v: power %v, pass chance %v, want 0", d, p, c)
		}
		if m, pt := d.MDE(), d.PassTolerance(); !math.IsInf(m, 1) || !math.IsInf(pt, 1) {
			t.Errorf("%+v: MDE %v, pass tolerance %v, want +Inf", d, m, pt)
		}
		if n := d.BlocksFor(0.05, 0.8); d.Noise.WithinVar == 0 && n != 0 {
			t.Errorf("%+v: BlocksFor %d without noise", d, n)
		}
	}
}
