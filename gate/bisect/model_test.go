package bisect

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/result"
)

// A trial-level model of a range of commits served on one runner, after
// gate/ab's seeded model (gate/ab/model_test.go): every block restarts the
// commit's server, and every start draws a log-normal per-start offset of
// the decode phase (the simulator's --session-cv-decode); every trial
// wobbles by its own log-normal noise. Commit i's true TPOT is 12 ms
// times the product of the decode factors of commits 1..i, so a culprit
// is a commit whose factor is not 1.
type model struct {
	// Factors holds each commit's own decode factor (index 0, the good
	// end, is 1).
	Factors []float64
	// SessionCV is the per-start CV, TrialCV the per-trial CV.
	SessionCV, TrialCV float64
	// TrialS and StartupS are one trial's and one start's server
	// seconds.
	TrialS, StartupS float64
	// BlockTrials is the measured trials per block.
	BlockTrials int
}

// gpuRunner is the model's default runner: 2 % per-start offsets and 2 %
// trial noise on TPOT p50, 30-second trials, 60-second starts (vLLM's
// load, CUDA-graph capture and warmups), two trials a block, so one block
// costs two minutes of GPU time.
func gpuRunner(factors []float64) model {
	return model{Factors: factors, SessionCV: 0.02, TrialCV: 0.02, TrialS: 30, StartupS: 60, BlockTrials: 2}
}

// level is commit i's true TPOT p50.
func (m model) level(i int) float64 {
	v := 12.0
	for _, f := range m.Factors[1 : i+1] {
		v *= f
	}
	return v
}

func lognormal(r *rand.Rand, cv float64) float64 {
	if cv <= 0 {
		return 1
	}
	s2 := math.Log1p(cv * cv)
	return math.Exp(r.NormFloat64()*math.Sqrt(s2) - s2/2)
}

// single is one start of commit i and one trial: what a naive bisect
// script measures.
func (m model) single(r *rand.Rand, i int) float64 {
	return m.level(i) * lognormal(r, m.SessionCV) * lognormal(r, m.TrialCV)
}

// modelBench is a Bench on the model: each pair's experiment grows block
// by block in ab's balanced order, and remembers its blocks, as the
// command's cache does.
type modelBench struct {
	m    model
	r    *rand.Rand
	exps map[Pair]*modelExp
	// runs counts the blocks actually run (not returned from memory).
	runs int
	// busy holds the commits whose blocks a neighbour shared the runner
	// with: their trials are slowed by the factor and carry a health
	// record of a loaded host (load 3 on 2 CPUs).
	busy map[int]float64
}

type modelExp struct {
	a, b    *result.Result
	minutes float64
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newModelBench(m model, seed uint64) *modelBench {
	return &modelBench{m: m, r: rand.New(rand.NewPCG(seed, 0xb15ec7)), exps: map[Pair]*modelExp{}}
}

func (mb *modelBench) Run(_ context.Context, p Pair, blocks int) ([]*result.Result, []*result.Result, error) {
	e := mb.exps[p]
	if e == nil {
		e = &modelExp{}
		for i, arm := range []string{"a", "b"} {
			r := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "chat", Cell: "chat", Hash: "h1"},
				Complete: true, Arm: arm, AB: &result.AB{}}
			if i == 0 {
				e.a = r
			} else {
				e.b = r
			}
		}
		mb.exps[p] = e
	}
	have := len(e.a.AB.Order)
	if have >= blocks {
		return []*result.Result{e.a}, []*result.Result{e.b}, nil
	}
	var order string
	var err error
	if have == 0 {
		order, err = ab.Order(blocks, 0)
	} else {
		order, err = ab.Extend(e.a.AB.Order, blocks-have, 0)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("model: %w", err)
	}
	for i := have; i < blocks; i++ {
		res, commit := e.a, p.A
		if order[i] == 'B' {
			res, commit = e.b, p.B
		}
		mb.runs++
		bl := result.Block{Index: i + 1, Arm: res.Arm, StartupS: mb.m.StartupS, Trials: mb.m.BlockTrials,
			StartedAt: epoch.Add(time.Duration(e.minutes * float64(time.Minute)))}
		e.minutes += mb.m.StartupS / 60
		level := mb.m.level(commit) * lognormal(mb.r, mb.m.SessionCV)
		for j := 0; j < mb.m.BlockTrials; j++ {
			v := level * lognormal(mb.r, mb.m.TrialCV)
			e.minutes += mb.m.TrialS / 60
			var h *result.Health
			if f, ok := mb.busy[commit]; ok {
				v *= f
				h = &result.Health{CPUs: 2, Samples: []result.HealthSample{{Load1: 3}}, Summary: result.HealthSummary{MaxLoad1: 3}}
			}
			res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials) + 1, Valid: true, Block: i + 1, DurationS: mb.m.TrialS,
				Completed: 100, Values: map[string]float64{"tpot_ms.p50": v, "output_throughput": 4e4 / v}, Health: h})
		}
		for _, r := range []*result.Result{e.a, e.b} {
			r.AB.Blocks = append(r.AB.Blocks, bl)
		}
	}
	e.a.AB.Order, e.b.AB.Order = order, order
	return []*result.Result{e.a}, []*result.Result{e.b}, nil
}

// commitsOf names n+1 commits c0 (good) .. cn (bad).
func commitsOf(n int) []Commit {
	cs := make([]Commit, n+1)
	for i := range cs {
		cs[i] = Commit{SHA: fmt.Sprintf("c%02d", i), Subject: fmt.Sprintf("commit %d", i), Author: "A U Thor <a@example.com>"}
	}
	return cs
}

// naiveBisect is `git bisect run` over single runs on the model: the ends
// measured once each, then at every step one start and one trial of the
// midpoint, called bad when it is nearer the bad end's value. It returns
// the commit it names and the server seconds it spent.
func naiveBisect(m model, r *rand.Rand) (int, float64) {
	n := len(m.Factors) - 1
	cost := 0.0
	run := func(i int) float64 {
		cost += m.StartupS + m.TrialS
		return m.single(r, i)
	}
	vg, vb := run(0), run(n)
	lo, hi := 0, n
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if v := run(mid); math.Abs(v-vb) < math.Abs(v-vg) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, cost
}
