package bisect

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Measure is one paired experiment as a look judged it: commit B against
// commit A on the searched metric.
type Measure struct {
	Pair
	// Blocks is the blocks judged (both arms), Look the look of the step
	// they were judged at.
	Blocks int          `json:"blocks"`
	Look   verdict.Look `json:"look"`
	// Worse is B against A in percent (points for ratio metrics),
	// positive when B is worse; Low and High bound it at Level (the
	// same level for every measure, whatever the test's pass alpha).
	Worse float64 `json:"worse"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Outcome is gate/ab's paired verdict of B against A at the test's
	// tolerance and alpha.
	Outcome verdict.Outcome `json:"outcome"`
	// W, SE and DF are the estimate on the test scale (log ratio for
	// relative metrics, worse-positive), its standard error and degrees
	// of freedom.
	W  float64 `json:"w"`
	SE float64 `json:"se"`
	DF float64 `json:"df"`
	// GPUSeconds is the server time of the blocks judged: start-ups and
	// measured trials of both arms.
	GPUSeconds float64 `json:"gpu_seconds"`
	// Warnings are the paired verdict's warnings on the cell.
	Warnings []string `json:"warnings,omitempty"`
	// RunnerBusy says how many of the judged trials (either arm) ran
	// while the runner was unhealthy; empty when none did. A search does
	// not decide on such an experiment (busy.go).
	RunnerBusy string `json:"runner_busy,omitempty"`
}

// test is how a Measure is judged: the tolerance (a fraction) and the
// alpha of ab's paired verdict, at a look.
type test struct {
	tol, alpha, passAlpha float64
	look                  verdict.Look
}

// judge compares the first blocks blocks of a and b on metric m with
// gate/ab's paired verdict under t.
func judge(a, b []*result.Result, blocks int, m string, base verdict.Policy, t test) (Measure, error) {
	a, b = FirstBlocks(a, blocks), FirstBlocks(b, blocks)
	p := base
	p.Rules = []verdict.Rule{{Metric: m, Gated: true, Tolerance: t.tol}}
	p.Alpha, p.PassAlpha, p.MaxLooks = t.alpha, t.passAlpha, max(t.look.Max, 1)
	c, err := ab.Compare(a, b, ab.Options{Policy: p, Look: t.look})
	if err != nil {
		return Measure{}, err
	}
	ms := Measure{Blocks: blocks, Look: t.look, Outcome: verdict.Inconclusive, GPUSeconds: gpuSeconds(a, b), RunnerBusy: runnerBusy(a, b)}
	var cell *verdict.Cell
	for i := range c.Cells {
		if c.Cells[i].Metric == m && c.Cells[i].Gated {
			if cell != nil {
				return ms, fmt.Errorf("%s: more than one workload cell carries it; bisect one workload at a time", m)
			}
			cell = &c.Cells[i]
		}
	}
	if cell == nil {
		ms.Warnings = append(ms.Warnings, fmt.Sprintf("%s was not compared: %s", m, notCompared(c)))
		return ms, nil
	}
	ms.Outcome, ms.Worse = cell.Outcome, cell.Worse
	ms.SE, ms.DF, ms.Warnings = cell.Noise.SE, cell.Noise.DF, cell.Warnings
	ms.W = cell.Worse / 100
	scale := func(x float64) float64 { return 100 * x }
	if !cell.Absolute {
		ms.W = math.Log1p(cell.Worse / 100)
		scale = func(x float64) float64 { return 100 * math.Expm1(x) }
	}
	ms.Low, ms.High = ms.Worse, ms.Worse
	if ms.tested() {
		q := verdict.TQuantile(1-(1-Level)/2, ms.DF)
		ms.Low, ms.High = scale(ms.W-q*ms.SE), scale(ms.W+q*ms.SE)
	}
	return ms, nil
}

// Level is the two-sided confidence level of every interval a search
// reports (a measure's change, a culprit's share).
const Level = 0.90

// tested reports whether the measure has an estimate to reason with.
func (m Measure) tested() bool { return m.SE > 0 && m.DF > 0 }

// notCompared says why no cell of c carries the metric.
func notCompared(c *verdict.Comparison) string {
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared {
			return fmt.Sprintf("workload %s: %s", w.Cell, w.Message)
		}
	}
	if len(c.Workloads) == 0 {
		return "no workload cell in either arm"
	}
	return "neither arm carries it"
}

// FirstBlocks is rs cut to the first n blocks of its order: the trials of
// later blocks and the later part of the design are left out, so a
// Bench's longer cached experiment is judged as the look asks.
func FirstBlocks(rs []*result.Result, n int) []*result.Result {
	out := make([]*result.Result, 0, len(rs))
	for _, r := range rs {
		if r == nil || r.AB == nil || len(r.AB.Order) <= n {
			out = append(out, r)
			continue
		}
		cp := *r
		d := *r.AB
		d.Order = d.Order[:n]
		d.Blocks = nil
		for _, bl := range r.AB.Blocks {
			if bl.Index <= n {
				d.Blocks = append(d.Blocks, bl)
			}
		}
		cp.AB = &d
		cp.Trials = nil
		for _, t := range r.Trials {
			if t.Block <= n {
				cp.Trials = append(cp.Trials, t)
			}
		}
		out = append(out, &cp)
	}
	return out
}

// gpuSeconds is the server time of the experiment's blocks: every block's
// start-up (recorded once per block, in both arms' designs) and every
// measured trial of both arms.
func gpuSeconds(a, b []*result.Result) float64 {
	var s float64
	for _, r := range a {
		if r != nil && r.AB != nil {
			for _, bl := range r.AB.Blocks {
				s += bl.StartupS
			}
			break
		}
	}
	for _, rs := range [][]*result.Result{a, b} {
		for _, r := range rs {
			if r == nil {
				continue
			}
			for _, t := range r.Trials {
				s += t.DurationS
			}
		}
	}
	return s
}

// blocksOf is the number of blocks the results hold (their design's
// order), 0 when none.
func blocksOf(rs []*result.Result) int {
	n := 0
	for _, r := range rs {
		if r != nil && r.AB != nil {
			n = max(n, len(r.AB.Order))
		}
	}
	return n
}
