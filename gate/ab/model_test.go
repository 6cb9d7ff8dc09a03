package ab

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// A trial-level model of serving a workload cell on one runner, fast enough
// for hundreds of seeded experiments per test. It follows the simulator
// (docs/simulator.md, gate/sim/session.go): every start of a server draws
// per-start log-normal factors for the prefill and the decode phase
// (sim.DrawSession's session_cv_*), step costs drift linearly in time
// (drift_pct_per_minute), and each trial wobbles by a little log-normal
// jitter. TTFT scales with the prefill factor, TPOT and ITL with the decode
// factor, E2EL with both in the proportion of a 128-token output, and the
// throughputs inversely with E2EL.
//
// One difference from the simulator is deliberate: the drift here is the
// runner's (thermals, clocks, neighbours), counted in wall-clock minutes
// since the experiment began, so it carries across server restarts; the
// simulator's drift_pct_per_minute counts from its own start and resets
// at each restart, which is the resident case of this model.
type world struct {
	// DriftPctPerMinute is the runner's drift; SessionCV the per-start CV
	// of each phase's factor.
	DriftPctPerMinute, SessionCV float64
	// TrialS is one trial's duration, StartupS one server start with
	// readiness and warmups, both in seconds.
	TrialS, StartupS float64
	// Resident runs each arm on one server started once; otherwise every
	// block restarts its arm's server.
	Resident bool
	// StallRuns is the chance that a run has one stalled trial (the
	// machine paused it): the first trial of a block drawn from the
	// default design's blocks, its TTFT statistics times StallTTFT.
	StallRuns, StallTTFT float64
}

// realistic is the model's default runner: 30-second trials and a
// 60-second start (vLLM's load, CUDA-graph capture and warmups are of that
// order), so a 16-block experiment takes half an hour and a drift of
// 2 %/minute moves the level by tens of percent.
var realistic = world{TrialS: 30, StartupS: 60}

// arm is one build's true scales of the two phases (1: unchanged).
type arm struct{ Prefill, Decode float64 }

// The trial-level CVs of each statistic on top of the phase jitter: tails
// are noisier than medians.
const (
	jitterPrefill = 0.010
	jitterDecode  = 0.003
	outputTokens  = 128
)

func logNormal(r *rand.Rand, cv float64) float64 {
	if cv <= 0 {
		return 1
	}
	s2 := math.Log1p(cv * cv)
	return math.Exp(r.NormFloat64()*math.Sqrt(s2) - s2/2)
}

// trialValues draws one trial's metrics at minute t of the experiment for a
// server whose per-start factors are sp, sd.
func (w world) trialValues(r *rand.Rand, a arm, sp, sd, t float64) map[string]float64 {
	drift := 1 + w.DriftPctPerMinute/100*t
	p := a.Prefill * sp * drift * logNormal(r, jitterPrefill)
	d := a.Decode * sd * drift * logNormal(r, jitterDecode)
	e50 := 40*p + 12*(outputTokens-1)*d
	e99 := 120*p + 15*(outputTokens-1)*d
	return map[string]float64{
		"ttft_ms.p50":        40 * p * logNormal(r, 0.015),
		"ttft_ms.p99":        120 * p * logNormal(r, 0.035),
		"tpot_ms.p50":        12 * d * logNormal(r, 0.004),
		"tpot_ms.p99":        15 * d * logNormal(r, 0.012),
		"itl_ms.p50":         11.5 * d * logNormal(r, 0.004),
		"e2el_ms.p50":        e50 * logNormal(r, 0.004),
		"e2el_ms.p99":        e99 * logNormal(r, 0.012),
		"output_throughput":  1e6 / e50 * logNormal(r, 0.004),
		"request_throughput": 1e4 / e50 * logNormal(r, 0.004),
		"success_rate":       1,
	}
}

// session draws one server start's factors.
func (w world) session(r *rand.Rand) (float64, float64) {
	return logNormal(r, w.SessionCV), logNormal(r, w.SessionCV)
}

// experiment is an A/B run in progress: the results of both arms and the
// clock.
type experiment struct {
	w        world
	r        *rand.Rand
	a, b     arm
	resident bool
	m        int
	seed     uint64
	order    string
	ran      int     // blocks run so far
	minutes  float64 // the clock
	serverS  float64 // server-seconds spent, starts included
	ra, rb   *result.Result
	sess     [2][2]float64 // resident sessions of A and B
	stall    int           // the block whose first trial stalls; 0: none
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newExperiment(w world, r *rand.Rand, a, b arm, resident bool, m int, seed uint64) *experiment {
	e := &experiment{w: w, r: r, a: a, b: b, resident: resident, m: m, seed: seed}
	if w.StallRuns > 0 && r.Float64() < w.StallRuns {
		e.stall = 1 + r.IntN(DefaultBlocks)
	}
	for i, name := range []string{"a", "b"} {
		res := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "chat", Cell: "chat", Hash: "h1"},
			Complete: true, Arm: name, AB: &result.AB{Seed: seed}}
		if i == 0 {
			e.ra = res
		} else {
			e.rb = res
		}
	}
	if resident {
		// Both servers start once, before the first block.
		for i := range e.sess {
			e.sess[i][0], e.sess[i][1] = w.session(r)
			e.minutes += w.StartupS / 60
			e.serverS += w.StartupS
		}
	}
	return e
}

// run runs the blocks of order not yet run.
func (e *experiment) run(order string) {
	e.order = order
	for ; e.ran < len(order); e.ran++ {
		idx, letter := e.ran+1, order[e.ran]
		res, a, k := e.ra, e.a, 0
		if letter == 'B' {
			res, a, k = e.rb, e.b, 1
		}
		sp, sd := e.sess[k][0], e.sess[k][1]
		bl := result.Block{Index: idx, Arm: string(letter + 'a' - 'A'), StartedAt: epoch.Add(time.Duration(e.minutes * float64(time.Minute))), Trials: e.m}
		if !e.resident {
			sp, sd = e.w.session(e.r)
			e.minutes += e.w.StartupS / 60
			e.serverS += e.w.StartupS
			bl.StartupS = e.w.StartupS
		}
		for j := 0; j < e.m; j++ {
			v := e.w.trialValues(e.r, a, sp, sd, e.minutes+e.w.TrialS/120)
			if idx == e.stall && j == 0 {
				v["ttft_ms.p50"] *= e.w.StallTTFT
				v["ttft_ms.p99"] *= e.w.StallTTFT
			}
			e.minutes += e.w.TrialS / 60
			e.serverS += e.w.TrialS
			res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials) + 1, Valid: true, Block: idx, DurationS: e.w.TrialS, Completed: 100, Values: v})
		}
		for _, r := range []*result.Result{e.ra, e.rb} {
			r.AB.Blocks = append(r.AB.Blocks, bl)
		}
	}
	for _, r := range []*result.Result{e.ra, e.rb} {
		r.AB.Order = order
	}
}

// abRun is `perfgate ab` on the model: blocks blocks of m trials, then,
// while a gated cell is undecided and looks are left, extend the order by
// DefaultMoreBlocks and judge again at the next look. The runner's mode is
// w.Resident; o.Resident is how the verdict treats it.
func abRun(w world, r *rand.Rand, a, b arm, o Options, blocks, m int, seed uint64) (*verdict.Comparison, *experiment) {
	e := newExperiment(w, r, a, b, w.Resident, m, seed)
	order, err := Order(blocks, seed)
	if err != nil {
		panic(err)
	}
	max := o.Policy.MaxLooks
	for look := 1; ; look++ {
		e.run(order)
		o.Look = verdict.Look{Index: look, Max: max}
		c, err := Compare([]*result.Result{e.ra}, []*result.Result{e.rb}, o)
		if err != nil {
			panic(err)
		}
		if c.Verdict != verdict.Inconclusive || len(c.NeedsTrials()) == 0 {
			return c, e
		}
		if order, err = Extend(order, DefaultMoreBlocks, seed); err != nil {
			panic(err)
		}
	}
}

// storedRun is the fixed protocol against a stored baseline on the model:
// the baseline's n trials on one server start, then the candidate's n
// trials on another, judged by verdict.Compare with its looks (more
// candidate trials, in batches of n/2, while a cell is undecided).
func storedRun(w world, r *rand.Rand, a, b arm, p verdict.Policy, n int) (*verdict.Comparison, float64) {
	minutes, serverS := 0.0, 0.0
	one := func(x arm, res *result.Result, count int, sp, sd float64) {
		for j := 0; j < count; j++ {
			v := w.trialValues(r, x, sp, sd, minutes+w.TrialS/120)
			minutes += w.TrialS / 60
			serverS += w.TrialS
			res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials) + 1, Valid: true, DurationS: w.TrialS, Completed: 100, Values: v})
		}
	}
	base := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "chat", Cell: "chat", Hash: "h1"}, Complete: true}
	cand := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "chat", Cell: "chat", Hash: "h1"}, Complete: true}
	start := func() (float64, float64) {
		minutes += w.StartupS / 60
		serverS += w.StartupS
		return w.session(r)
	}
	sp, sd := start()
	one(a, base, n, sp, sd)
	sp, sd = start()
	one(b, cand, n, sp, sd)
	for look := 1; ; look++ {
		c, err := verdict.Compare([]*result.Result{base}, []*result.Result{cand}, p, verdict.Look{Index: look, Max: p.MaxLooks})
		if err != nil {
			panic(err)
		}
		if c.Verdict != verdict.Inconclusive || len(c.NeedsTrials()) == 0 {
			return c, serverS
		}
		one(b, cand, max(n/2, 1), sp, sd)
	}
}

// outcomeOf is the outcome of metric id in c's cells ("" when absent).
func outcomeOf(c *verdict.Comparison, id string) verdict.Outcome {
	for _, cell := range c.Cells {
		if cell.Metric == id {
			return cell.Outcome
		}
	}
	return ""
}
