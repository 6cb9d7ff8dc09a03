package ab

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestBlocksToPass: the number of blocks is the first multiple of four at
// which the pass chance reaches the target (and the one before it does
// not), more noise needs more blocks, and resident servers whose
// between-session term alone exceeds what the tolerance allows never pass.
func TestBlocksToPass(t *testing.T) {
	quiet := tpotDesign(0, 0.03)
	n := quiet.BlocksToPass(0.9)
	if n == 0 || n%4 != 0 {
		t.Fatalf("BlocksToPass(0.9) = %d", n)
	}
	at, before := quiet, quiet
	at.Blocks, before.Blocks = n, n-4
	if at.PassChance() < 0.9 || (n > 4 && before.PassChance() >= 0.9) {
		t.Errorf("BlocksToPass %d: pass chance %.3f there, %.3f four blocks before", n, at.PassChance(), before.PassChance())
	}
	noisy := quiet
	noisy.Noise.BetweenVar *= 4
	if m := noisy.BlocksToPass(0.9); m <= n {
		t.Errorf("twice the per-start CV needs %d blocks, the quieter design %d", m, n)
	}
	resident := quiet
	resident.Resident, resident.Noise.BetweenVar = true, lv(0.03)
	if m := resident.BlocksToPass(0.9); m != 0 {
		t.Errorf("resident servers with a 3 %% session CV against a 3 %% tolerance pass at %d blocks", m)
	}
	// Their SE never falls below 2·between² (4.2 %): a 6 % change is never
	// found with 80 % power, a 20 % one at some number of blocks.
	if m := resident.BlocksFor(0.06, 0.8); m != 0 {
		t.Errorf("resident servers: a 6 %% change found at %d blocks", m)
	}
	if m := resident.BlocksFor(0.2, 0.8); m == 0 {
		t.Errorf("resident servers: a 20 %% change is never found; want a finite number of blocks")
	}
}

// TestBlockSeconds: the mean time from block start to block start, the
// last block's unknown length left out.
func TestBlockSeconds(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(s ...float64) []result.Block {
		var out []result.Block
		for i, x := range s {
			out = append(out, result.Block{Index: i + 1, StartedAt: t0.Add(time.Duration(x * float64(time.Second)))})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		blocks []result.Block
		want   float64
	}{
		{"none", nil, 0},
		{"one block", at(0), 0},
		{"even", at(0, 90, 180, 270), 90},
		{"uneven", at(0, 100, 160), 80},
		{"an unstarted block is skipped", append(at(0, 60), result.Block{Index: 3}), 60},
	} {
		if got := blockSeconds(tc.blocks); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPlanOnUndecidedCells: Compare puts a plan on every undecided gated
// cell and on none other, the plan is PlanOf's, the experiment's plan is
// the least power and the most blocks of the cells', and comparison.json
// carries it (block_s from the blocks' starts).
// undecided is the paired comparison of eight blocks of a noisy runner,
// where most cells stay undecided.
func undecided(t *testing.T) *verdict.Comparison {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	e := newExperiment(world{TrialS: 30, StartupS: 60, SessionCV: 0.04}, r, arm{1, 1}, arm{1, 1}, false, 2, 0)
	order, _ := Order(8, 0)
	e.run(order)
	c, err := Compare([]*result.Result{e.ra}, []*result.Result{e.rb}, Options{Policy: verdict.DefaultPolicy()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPlanOnUndecidedCells(t *testing.T) {
	c := undecided(t)
	undecided := 0
	var least float64 = 2
	most := 0
	for i := range c.Cells {
		cell := &c.Cells[i]
		want := cell.Gated && cell.Outcome == verdict.Inconclusive
		if (cell.Plan != nil) != want {
			t.Errorf("%s: %s, gated %v, plan %+v", cell.Metric, cell.Outcome, cell.Gated, cell.Plan)
			continue
		}
		if !want {
			continue
		}
		undecided++
		if got := PlanOf(c, cell); got != *cell.Plan {
			t.Errorf("%s: plan %+v, PlanOf %+v", cell.Metric, *cell.Plan, got)
		}
		p := cell.Plan
		if p.Blocks != 8 || p.Change != 2*cell.Tolerance || p.Power <= 0 || p.Power >= 1 || p.BlocksToPass <= 8 || p.BlocksForChange == 0 {
			t.Errorf("%s: implausible plan %+v at 8 blocks, tolerance %v", cell.Metric, *p, cell.Tolerance)
		}
		least = math.Min(least, p.Power)
		most = max(most, p.BlocksToPass)
	}
	if undecided == 0 {
		t.Fatal("no undecided cell: the scenario tests nothing")
	}
	if c.AB.Plan == nil || c.AB.Plan.Power != least || c.AB.Plan.BlocksToPass != most || c.AB.Plan.Change != 0 {
		t.Errorf("experiment plan %+v, want power %v and %d blocks to pass", c.AB.Plan, least, most)
	}
	if want := 60 + 2*30.0; math.Abs(c.AB.BlockS-want) > 1e-6 {
		t.Errorf("block_s %v, want %v (one start and two trials per block)", c.AB.BlockS, want)
	}
	js, _ := json.Marshal(c)
	for _, want := range []string{`"plan":{"blocks":8,"change":`, `"blocks_to_pass":`, `"block_s":120`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("comparison JSON lacks %s", want)
		}
	}
	// A decided experiment has no plan.
	r := rand.New(rand.NewPCG(3, 4))
	e := newExperiment(world{TrialS: 30, StartupS: 60}, r, arm{1, 1}, arm{1, 1.5}, false, 2, 0)
	order, _ := Order(16, 0)
	e.run(order)
	if c, _ = Compare([]*result.Result{e.ra}, []*result.Result{e.rb}, Options{Policy: verdict.DefaultPolicy()}); c.Inconclusives == 0 && c.AB.Plan != nil {
		t.Errorf("no undecided cell, experiment plan %+v", c.AB.Plan)
	}
}

// TestPlanKeptPairs: a pair that lost a block does not count in the
// plan's blocks.
func TestPlanKeptPairs(t *testing.T) {
	c := &verdict.Comparison{Family: 1, LookAlpha: 0.01, Policy: verdict.Policy{PassAlpha: 0.1}, AB: &verdict.Paired{Blocks: 16, Pairs: 8}}
	cell := &verdict.Cell{Tolerance: 3, Noise: verdict.CellNoise{Sigma: 0.02}, Blocks: &verdict.PairedCell{Pairs: make([]float64, 7), Lost: []int{3}}}
	if d := DesignOf(c, cell); d.Blocks != 14 {
		t.Errorf("DesignOf with 7 of 8 pairs kept: %d blocks, want 14", d.Blocks)
	}
	if p := PlanOf(c, cell); p.Blocks != 14 || p.Change != 6 {
		t.Errorf("plan %+v", p)
	}
}

// TestSmallestBlocksIsTheScan: the bisection of BlocksFor and
// BlocksToPass finds what a scan of every multiple of four finds, on
// designs from quiet to hopeless, restarted and resident.
func TestSmallestBlocksIsTheScan(t *testing.T) {
	scan := func(ok func(int) bool) int {
		for n := 4; n <= maxBlocks; n += 4 {
			if ok(n) {
				return n
			}
		}
		return 0
	}
	var designs []Design
	for _, between := range []float64{0, lv(0.01), lv(0.02), lv(0.05)} {
		for _, resident := range []bool{false, true} {
			d := tpotDesign(0, 0.03)
			d.Noise.BetweenVar, d.Resident, d.Family, d.LookAlpha = between, resident, 9, 0.01/3
			designs = append(designs, d)
		}
	}
	for _, d := range designs {
		for _, change := range []float64{0.035, 0.05, 0.1, 0.3} {
			want := scan(func(n int) bool { e := d; e.Blocks = n; return e.Power(change) >= 0.8 })
			if got := d.BlocksFor(change, 0.8); got != want {
				t.Errorf("between %.5f resident %v: BlocksFor(%v) %d, the scan %d", d.Noise.BetweenVar, d.Resident, change, got, want)
			}
		}
		want := scan(func(n int) bool { e := d; e.Blocks = n; return e.PassChance() >= 0.9 })
		if got := d.BlocksToPass(0.9); got != want {
			t.Errorf("between %.5f resident %v: BlocksToPass %d, the scan %d", d.Noise.BetweenVar, d.Resident, got, want)
		}
	}
}
