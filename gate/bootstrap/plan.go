// Package bootstrap decides what `perfgate init` sets up on a team's GPU
// runner once calibration has measured its noise: which kind of PR check
// can decide the gated metrics (a stored baseline, or an interleaved A/B
// of the PR against its merge base), at which tolerances, with how many
// trials or blocks, and at what GPU time. It is pure: the command hands it
// the calibrated noise, the policy's figures and the measured costs, and
// writes what it returns.
//
// The predictions are the verdict's and the A/B's own (verdict.Design,
// ab.Design), so the table init prints is the one the PR check will live
// by: a tolerance is "decidable" when an unchanged build passes it in at
// least 90 % of runs, the rate both Designs quote PassTolerance at.
package bootstrap

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Metric is one gated (cell, metric) with its calibrated noise and its
// tolerance (a fraction: 0.03 = 3 %; points as a fraction for absolute
// metrics).
type Metric struct {
	Cell, ID, Label string
	Absolute        bool
	Noise           verdict.Prior
	Tolerance       float64
}

// Rules are the policy's figures and the bounds of the search.
type Rules struct {
	// Family is the number of gated (cell, metric) pairs in the Holm
	// family; LookAlpha Policy.Alpha / MaxLooks; PassAlpha the policy's.
	Family               int
	LookAlpha, PassAlpha float64
	// MinTrials and MaxTrials bound the trials per arm of a stored-baseline
	// check (the candidate's, and the first baseline's).
	MinTrials, MaxTrials int
	// BlockTrials is the trials of every workload per A/B block; MaxBlocks
	// the most blocks an A/B check may need to be chosen.
	BlockTrials, MaxBlocks int
	// MaxRestarts is the most server starts per arm a restarted stored
	// check may use (trials.restarts; restarts.go); below 2: none.
	MaxRestarts int
	// MaxGPU is the most GPU time one PR check may cost (0: no bound).
	MaxGPU time.Duration
	// PassRate is the rate each gated metric must pass an unchanged build
	// at for the whole check to pass it in 90 % of runs
	// (verdict.FamilyPassRate); Decide sets it from the metrics it plans.
	PassRate float64
	// Nightlies is the baseline history the "more" column looks ahead to:
	// after this many nightly recordings the baseline has that many
	// sessions.
	Nightlies int
}

// MaxTolerance is the widest tolerance a widened check writes (50 %).
const MaxTolerance = 0.5

// DefaultRules are init's bounds: up to 30 trials per arm, 2 trials per
// block and at most 64 blocks, up to 8 server starts per arm, at most an
// hour of GPU time per PR check, a week of nightlies. Without the GPU
// bound, a noisy tail metric (TTFT p99 on a 2 % between-session runner)
// made init choose a 28-block A/B costing 1h53m per PR over a restarted
// stored check of 32 min that widens that one metric from 6 to 7.5 %; a
// team that wants the A/B raises --max-gpu and the table says what it buys.
func DefaultRules() Rules {
	return Rules{MinTrials: 5, MaxTrials: 30, BlockTrials: ab.DefaultBlockTrials, MaxBlocks: 64, MaxRestarts: 8, MaxGPU: time.Hour, Nightlies: 7}
}

// Costs are what calibration measured: one server start (launch, ready,
// warmup, stop) and one trial of every workload, all cells together.
type Costs struct {
	Startup, Trial time.Duration
}

// Mode is the kind of PR check init writes.
type Mode string

const (
	// Stored compares the PR's one session with a stored baseline at the
	// configured tolerances.
	Stored Mode = "stored"
	// AB runs the PR build and its merge base's in interleaved blocks on
	// the same runner (perfgate ab), which cancels per-start offsets.
	AB Mode = "ab"
	// Restarted compares with a stored baseline, both arms measured over
	// Plan.Restarts server starts (trials.restarts), which averages the
	// session offsets of one build without a second one.
	Restarted Mode = "stored-restarts"
	// RestartedWidened is Widened over Plan.Restarts server starts per arm:
	// no check decides the configured tolerances, and the restarted one
	// decides tighter ones than a single session (widenedRestarts).
	RestartedWidened Mode = "stored-restarts-widened"
	// Widened compares with a stored baseline at tolerances raised to what
	// calibration shows decidable: neither check decides the configured
	// ones within the bounds.
	Widened Mode = "stored-widened"
)

// Outcome is what one design of one metric decides.
type Outcome struct {
	// Decides is the smallest worsening found as a regression with 80 %
	// power at the tolerance (+Inf: none up to 10x); PassTolerance the
	// smallest tolerance an unchanged build passes at the per-metric rate
	// (Rules.PassRate);
	// PassChance the chance it passes at the tolerance.
	Decides, PassTolerance, PassChance float64
}

// Decidable says whether an unchanged build passes at tol at the plan's
// per-metric rate (Rules.PassRate).
func (o Outcome) Decidable(tol float64) bool { return o.PassTolerance <= tol*(1+1e-9) }

// Row is one gated metric under both checks, and what more would buy.
type Row struct {
	Metric
	// Stored at Plan.Trials per arm, AB at Plan.Blocks blocks, Restarts
	// at Plan.RestartTrials over Plan.Restarts starts per arm (zero
	// Outcome when no restarted check was found).
	Stored, AB, Restarts Outcome
	// MoreTrials is the stored check at twice the trials, MoreBlocks the
	// A/B at twice the blocks, History the stored check once the baseline
	// holds Rules.Nightlies sessions.
	MoreTrials, MoreBlocks, History Outcome
}

// Plan is init's decision.
type Plan struct {
	Mode Mode
	// Why says in a sentence or two why Mode was chosen.
	Why string
	// Trials per arm of the stored check (and of the first baseline);
	// Blocks and BlockTrials of the A/B check.
	Trials, Blocks, BlockTrials int
	// PassRate is the rate each gated metric is planned to pass an
	// unchanged build at, so the whole check passes it in 90 % of runs.
	PassRate float64
	// StoredGPU and ABGPU are one PR check's GPU time under each, the
	// latter at ABCostBlocks blocks (Blocks, or MaxBlocks when no number
	// of blocks reaches the tolerances).
	StoredGPU, ABGPU time.Duration
	ABCostBlocks     int
	// Restarts and RestartTrials are the restarted stored check the table
	// shows: the cheapest that decides every gated metric when
	// RestartsReach, else MaxRestarts starts (what the most restarts
	// would buy); 0 when MaxRestarts is below 2. RestartsGPU is its GPU
	// time per PR check (start-ups at Costs.Startup).
	Restarts, RestartTrials int
	RestartsReach           bool
	RestartsGPU             time.Duration
	// Tolerances are the tolerances the check runs at, per metric id (the
	// largest over cells when widened): what perfgate.yaml gets.
	Tolerances map[string]float64
	// Undecidable are the metric ids no check decides on this runner: in
	// some cell no tolerance up to MaxTolerance is decidable, or the
	// between-session estimate is too uncertain. They stay gated at their
	// own tolerances, so the PR check reports them inconclusive and says
	// what would decide them, rather than pass them unseen.
	Undecidable []string
	Rows        []Row
	Nightlies   int
}

// StoredDesign is the verdict's design of a stored-baseline check of m
// with n trials per arm against a baseline of sessions sessions.
func StoredDesign(m Metric, r Rules, n, sessions int) verdict.Design {
	return verdict.Design{CandidateTrials: n, BaselineTrials: n, BaselineSessions: sessions, Noise: m.Noise, Criterion: r.criterion(m)}
}

// ABDesign is the A/B's design of m with blocks restarted blocks.
func ABDesign(m Metric, r Rules, blocks int) ab.Design {
	return ab.Design{Blocks: blocks, BlockTrials: r.BlockTrials, Noise: m.Noise, Criterion: r.criterion(m)}
}

// criterion is the rule both designs of m are judged by.
func (r Rules) criterion(m Metric) verdict.Criterion {
	return verdict.Criterion{Absolute: m.Absolute, Tolerance: m.Tolerance, Family: r.Family, LookAlpha: r.LookAlpha, PassAlpha: r.PassAlpha, PassRate: r.PassRate}
}

// Decide chooses the PR check. A stored baseline is the cheapest check
// (one server start per PR), so it wins whenever some trial count up to
// MaxTrials lets an unchanged build pass every gated metric at its
// tolerance 90 % of the time. A single candidate session cannot resolve
// less than its own session offset, so where the between-session noise
// forbids that, the interleaved A/B, whose restarted blocks average the
// offsets away, is chosen if it reaches the tolerances within MaxBlocks
// blocks and MaxGPU. Otherwise the stored check runs at the tolerances it
// can decide, and says so.
func Decide(ms []Metric, r Rules, c Costs) (Plan, error) {
	if len(ms) == 0 {
		return Plan{}, fmt.Errorf("no gated metric has calibrated noise: nothing to plan")
	}
	if r.MinTrials < 2 || r.MaxTrials < r.MinTrials || r.BlockTrials < 1 || r.MaxBlocks < 4 {
		return Plan{}, fmt.Errorf("bootstrap rules: trials %d-%d (want 2 <= min <= max), block trials %d (want >= 1), max blocks %d (want >= 4)",
			r.MinTrials, r.MaxTrials, r.BlockTrials, r.MaxBlocks)
	}
	if r.Nightlies < 1 {
		r.Nightlies = 1
	}
	// The PR check passes only when every gated metric passes, so each is
	// planned to pass at the family's rate, not at 90 % alone: five metrics
	// at 90 % each passed an unchanged build in 80 % of runs.
	noisy := 0
	for _, m := range ms {
		if !silent(m) {
			noisy++
		}
	}
	r.PassRate = verdict.FamilyPassRate(noisy)
	p := Plan{BlockTrials: r.BlockTrials, Nightlies: r.Nightlies, Tolerances: map[string]float64{}, PassRate: r.PassRate}
	// A metric that neither check can decide at any tolerance up to
	// MaxTolerance is set aside first (it stays gated, and undecided), so
	// it does not decide the choice for the metrics that can be decided.
	all := ms
	hopeless, unsure := map[string]bool{}, map[string]bool{}
	ms = nil
	for _, m := range all {
		if Unsure(m) {
			unsure[m.ID] = true
			continue
		}
		if hopelessMetric(m, r) {
			hopeless[m.ID] = true
			continue
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 && len(unsure) > 0 {
		return Plan{}, fmt.Errorf("the calibration's between-session estimates of every gated metric rest on less than one degree of freedom: rerun with more --restarts")
	}
	if len(ms) == 0 {
		return Plan{}, fmt.Errorf("no gated metric is decidable at a tolerance up to %.0f %% by a stored baseline of %d trials or an A/B of %d blocks: the runner is too noisy, or calibration had too few sessions to tell", 100*MaxTolerance, r.MaxTrials, r.MaxBlocks)
	}
	p.Trials = storedTrials(ms, r)
	p.Blocks = abBlocks(ms, r)
	cost := func(mode Mode, trials, blocks int) time.Duration {
		if mode == AB {
			return time.Duration(blocks) * (c.Startup + time.Duration(r.BlockTrials)*c.Trial)
		}
		return c.Startup + time.Duration(trials)*c.Trial
	}
	worst, need := worstStored(ms, r)
	if r.MaxRestarts >= 2 {
		p.Restarts, p.RestartTrials = restartsPlan(ms, r, c)
		if p.Restarts > 0 {
			p.RestartsReach = true
			p.RestartsGPU = restartsCost(c, p.Restarts, p.RestartTrials)
		}
	}
	restartsWin := p.Restarts > 0 && (r.MaxGPU == 0 || p.RestartsGPU <= r.MaxGPU) &&
		(p.Blocks == 0 || p.RestartsGPU <= cost(AB, 0, p.Blocks))
	switch {
	case p.Trials > 0:
		p.Mode = Stored
		p.Why = fmt.Sprintf("a stored baseline decides every gated metric at its tolerance with %d trials per arm (an unchanged build passes the whole check in at least 90 %% of runs, each metric in %.1f %%): one server start per PR is the cheapest check", p.Trials, 100*r.PassRate)
	case restartsWin:
		p.Mode = Restarted
		p.Trials = p.RestartTrials
		abText := "no A/B of up to " + fmt.Sprint(r.MaxBlocks) + " blocks does"
		if p.Blocks > 0 {
			abText = fmt.Sprintf("the A/B that would (%d blocks) costs %s per PR plus building the merge base", p.Blocks, cost(AB, 0, p.Blocks).Round(time.Second))
		}
		p.Why = fmt.Sprintf("the between-session noise of %s %s (CV %.1f %%) keeps one candidate session from passing an unchanged build at its %s tolerance with up to %d trials (%s); %d trials spread over %d server starts on each arm (trials.restarts: %d) average the session offsets and decide every gated metric for %s of GPU time per PR, while %s",
			worst.Cell, worst.Label, 100*cv(worst.Noise.BetweenVar, worst.Absolute), pct(worst.Tolerance, worst.Absolute), r.MaxTrials, needs(need, worst.Absolute),
			p.RestartTrials, p.Restarts, p.Restarts, p.RestartsGPU.Round(time.Second), abText)
	case p.Blocks > 0 && (r.MaxGPU == 0 || cost(AB, 0, p.Blocks) <= r.MaxGPU):
		p.Mode = AB
		// The first baseline (the nightly's start) and the stored
		// column of the table use the trials past which more buy little.
		p.Trials = widenedTrials(ms, r)
		p.Why = fmt.Sprintf("the between-session noise of %s %s (CV %.1f %%) keeps one candidate session from passing an unchanged build at its %s tolerance with up to %d trials (%s); an interleaved A/B of the PR against its merge base restarts both servers every block, which averages the session offsets away, and decides every gated metric with %d blocks",
			worst.Cell, worst.Label, 100*cv(worst.Noise.BetweenVar, worst.Absolute), pct(worst.Tolerance, worst.Absolute), r.MaxTrials, needs(need, worst.Absolute), p.Blocks)
	default:
		p.Mode = Widened
		p.Trials = widenedTrials(ms, r)
		reason := fmt.Sprintf("no A/B of up to %d blocks does either", r.MaxBlocks)
		if p.Blocks > 0 {
			reason = fmt.Sprintf("the A/B that would (%d blocks) costs %s of GPU time per PR, above the %s allowed", p.Blocks, cost(AB, 0, p.Blocks).Round(time.Second), r.MaxGPU)
		}
		p.Why = fmt.Sprintf("no stored baseline of up to %d trials decides %s %s at its %s tolerance (%s), and %s; the check runs against a stored baseline with %d trials per arm at the tolerances calibration shows decidable, which shrink as the nightly history grows",
			r.MaxTrials, worst.Cell, worst.Label, pct(worst.Tolerance, worst.Absolute), needs(need, worst.Absolute), reason, p.Trials)
		if k, n, ok := widenedRestarts(ms, r, c, p.Trials); ok {
			p.Mode, p.Trials = RestartedWidened, n
			// It reaches the tolerances it widens to.
			p.Restarts, p.RestartTrials, p.RestartsGPU, p.RestartsReach = k, n, restartsCost(c, k, n), true
			p.Why = fmt.Sprintf("no stored baseline of up to %d trials decides %s %s at its %s tolerance (%s), and %s; %d trials spread over %d server starts on each arm (trials.restarts: %d) average the session offsets and decide tighter tolerances than one session can, for %s of GPU time per PR: the check runs at those, which shrink as the nightly history grows",
				r.MaxTrials, worst.Cell, worst.Label, pct(worst.Tolerance, worst.Absolute), needs(need, worst.Absolute), reason, n, k, k, p.RestartsGPU.Round(time.Second))
		}
	}
	if k := min(r.MaxRestarts, r.MaxTrials/2); !p.RestartsReach && k >= 2 {
		// What the most restarts would buy, at the check's trials, two
		// per start at least, within MaxTrials.
		p.Restarts = k
		p.RestartTrials = evenTrials(max(2*k, p.Trials), k, r.MaxTrials)
		p.RestartsGPU = restartsCost(c, p.Restarts, p.RestartTrials)
	}
	blocks := p.Blocks
	if blocks == 0 {
		blocks = r.MaxBlocks - r.MaxBlocks%4
	}
	p.StoredGPU, p.ABGPU, p.ABCostBlocks = cost(Stored, p.Trials, 0), cost(AB, 0, blocks), blocks
	for _, m := range all {
		row := Row{Metric: m}
		row.Stored = outcome(StoredDesign(m, r, p.Trials, 1), row.Metric)
		undecidable := hopeless[m.ID] || unsure[m.ID]
		if (p.Mode == Widened || p.Mode == RestartedWidened) && !undecidable {
			// Widening only raises: a metric the stored check decides at
			// its own tolerance keeps it. One no tolerance up to
			// MaxTolerance decides keeps its own too, undecided.
			pass := row.Stored.PassTolerance
			if p.Mode == RestartedWidened {
				pass = outcome(RestartsDesign(m, r, p.RestartTrials, p.Restarts), m).PassTolerance
			}
			if t := widen(pass); t > MaxTolerance {
				hopeless[m.ID] = true
			} else {
				row.Tolerance = max(m.Tolerance, t)
			}
			row.Stored = outcome(StoredDesign(row.Metric, r, p.Trials, 1), row.Metric)
		}
		row.AB = outcome(ABDesign(row.Metric, r, blocks), row.Metric)
		if p.Restarts > 0 {
			row.Restarts = outcome(RestartsDesign(row.Metric, r, p.RestartTrials, p.Restarts), row.Metric)
		}
		row.MoreTrials = outcome(StoredDesign(row.Metric, r, 2*p.Trials, 1), row.Metric)
		row.MoreBlocks = outcome(ABDesign(row.Metric, r, 2*blocks), row.Metric)
		row.History = outcome(StoredDesign(row.Metric, r, p.Trials, r.Nightlies), row.Metric)
		p.Rows = append(p.Rows, row)
		if row.Tolerance > p.Tolerances[m.ID] {
			p.Tolerances[m.ID] = row.Tolerance
		}
	}
	for id := range p.Tolerances {
		if hopeless[id] || unsure[id] {
			p.Undecidable = append(p.Undecidable, id)
		}
	}
	sort.Strings(p.Undecidable)
	var noTol, few []string
	for _, id := range p.Undecidable {
		if unsure[id] {
			few = append(few, id)
		} else {
			noTol = append(noTol, id)
		}
	}
	if len(noTol) > 0 {
		p.Why += fmt.Sprintf("; %s stay gated at their tolerances, but no tolerance up to %.0f %% is decidable for them on this runner: the PR check reports them inconclusive, with what would decide them", strings.Join(noTol, ", "), 100*MaxTolerance)
	}
	if len(few) > 0 {
		p.Why += fmt.Sprintf("; %s stay gated at their tolerances, but the calibration's between-session estimate of them rests on less than one degree of freedom, so the PR check may not bound them and reports them inconclusive (more --restarts make the estimate firmer)", strings.Join(few, ", "))
	}
	sort.SliceStable(p.Rows, func(i, j int) bool {
		if p.Rows[i].Cell != p.Rows[j].Cell {
			return p.Rows[i].Cell < p.Rows[j].Cell
		}
		return p.Rows[i].ID < p.Rows[j].ID
	})
	return p, nil
}
