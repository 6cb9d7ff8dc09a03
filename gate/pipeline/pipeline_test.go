package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// fakeTrials produces trials whose gated metrics scatter log-normally with
// coefficient of variation cv[cell] around 100 × slow[cell] (latencies) or
// 100 / slow[cell] (throughputs). failAt makes the run of a cell fail
// after that many trials.
type fakeTrials struct {
	rng    *rand.Rand
	cv     map[string]float64
	slow   map[string]float64
	failAt map[string]int
	calls  map[string][]int // n of each RunTrials call, by cell
	// clock, when set, advances a minute per trial.
	clock *time.Time
}

func newFake(seed uint64) *fakeTrials {
	return &fakeTrials{rng: rand.New(rand.NewPCG(seed, 7)), cv: map[string]float64{}, slow: map[string]float64{}, failAt: map[string]int{}, calls: map[string][]int{}}
}

func (f *fakeTrials) Prepare(ctx context.Context, m *workload.Manifest) (result.Server, error) {
	return result.Server{URL: "http://127.0.0.1:1", Model: "m"}, nil
}

func (f *fakeTrials) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return &result.Result{Schema: result.Schema, Workload: result.Workload{Name: m.Name, Cell: m.Cell, Hash: m.Hash}, Server: srv, Complete: true}
}

func (f *fakeTrials) RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	f.calls[m.Cell] = append(f.calls[m.Cell], n)
	cv, slow := f.cv[m.Cell], f.slow[m.Cell]
	if cv == 0 {
		cv = 0.01
	}
	if slow == 0 {
		slow = 1
	}
	for k := 0; k < n; k++ {
		if at, ok := f.failAt[m.Cell]; ok && len(res.Trials) >= at {
			res.Complete, res.IncompleteReason = false, "server died"
			return errors.New("server died")
		}
		t := result.Trial{Index: len(res.Trials), Valid: true, Completed: 10, Values: map[string]float64{"success_rate": 1}}
		for _, id := range verdict.DefaultGated {
			if id == "success_rate" {
				continue
			}
			v := 100 * slow
			if strings.Contains(id, "throughput") {
				v = 100 / slow
			}
			t.Values[id] = v * math.Exp(cv*f.rng.NormFloat64())
		}
		res.Trials = append(res.Trials, t)
		if f.clock != nil {
			*f.clock = f.clock.Add(time.Minute)
		}
	}
	return nil
}

func manifests(n, min, max int) []*workload.Manifest {
	var out []*workload.Manifest
	for i := 0; i < n; i++ {
		cell := fmt.Sprintf("w%d", i)
		out = append(out, &workload.Manifest{Name: cell, Cell: cell, Hash: "h" + cell, Trials: workload.TrialBudget{Min: min, Max: max}})
	}
	return out
}

// baselines runs the manifests once on a fake to record baselines.
func baselines(t *testing.T, ms []*workload.Manifest, n int, seed uint64) []*result.Result {
	t.Helper()
	f := newFake(seed)
	var out []*result.Result
	for _, m := range ms {
		r := f.NewResult(m, result.Server{Model: "m"})
		if err := f.RunTrials(context.Background(), m, r, n); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestRunSingleLook(t *testing.T) {
	ms := manifests(3, 5, 5)
	f := newFake(1)
	out, err := Run(context.Background(), f, ms, Options{Baselines: baselines(t, ms, 5, 2), Policy: sameSession(), Budget: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if out.Looks != 1 || out.ExtraTrials != 0 || out.Comparison.Look != (verdict.Look{Index: 1, Max: 1}) {
		t.Errorf("looks %d extra %d look %+v; want one look of one (min == max spends the whole alpha)", out.Looks, out.ExtraTrials, out.Comparison.Look)
	}
	if out.Comparison.Verdict != verdict.Pass {
		t.Errorf("verdict %s, want pass", out.Comparison.Verdict)
	}
}

func TestRunExtraTrialsOnlyForUndecided(t *testing.T) {
	ms := manifests(3, 3, 9)
	base := baselines(t, ms, 9, 2)
	f := newFake(3)
	f.cv["w1"] = 0.02 // noisy: undecided with 3 trials
	f.slow["w1"] = 1.02
	var log strings.Builder
	out, err := Run(context.Background(), f, ms, Options{Baselines: base, Policy: sameSession(), Budget: time.Hour, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	// The log says where each extra look stands against both limits.
	if want := fmt.Sprintf("w1: inconclusive: look 2/%d: trial 4 of at most 9 (", verdict.DefaultPolicy().MaxLooks); !strings.Contains(log.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, log.String())
	}
	if out.Looks < 2 {
		t.Fatalf("looks = %d, want extra looks for the undecided workload (calls %v)", out.Looks, f.calls)
	}
	if out.Comparison.Look.Max != verdict.DefaultPolicy().MaxLooks {
		t.Errorf("look max %d, want the policy's %d declared up front", out.Comparison.Look.Max, verdict.DefaultPolicy().MaxLooks)
	}
	if len(f.calls["w1"]) < 2 {
		t.Errorf("w1 calls %v: want extra trials", f.calls["w1"])
	}
	total := 0
	for _, n := range f.calls["w1"] {
		total += n
	}
	if total > 9 {
		t.Errorf("w1 ran %d trials, over trials.max 9", total)
	}
	undecidedAtEnd := map[string]bool{}
	for _, c := range out.Comparison.Cells {
		if c.Gated && c.Outcome == verdict.Inconclusive {
			undecidedAtEnd[c.Workload] = true
		}
	}
	for _, cell := range []string{"w0", "w2"} {
		if !undecidedAtEnd[cell] && len(f.calls[cell]) != 1 {
			t.Errorf("%s was decided yet got calls %v", cell, f.calls[cell])
		}
	}
	// Extra trials carry their look.
	r := out.Results[1]
	if r.Trials[0].Look != 0 || r.Trials[len(r.Trials)-1].Look < 1 {
		t.Errorf("looks of w1's trials: first %d last %d", r.Trials[0].Look, r.Trials[len(r.Trials)-1].Look)
	}
}

func TestRunNoBudgetNoExtraTrials(t *testing.T) {
	ms := manifests(1, 3, 9)
	f := newFake(3)
	f.cv["w0"], f.slow["w0"] = 0.03, 1.02
	out, err := Run(context.Background(), f, ms, Options{Baselines: baselines(t, ms, 3, 2), Policy: sameSession()})
	if err != nil {
		t.Fatal(err)
	}
	if out.Looks != 1 || len(f.calls["w0"]) != 1 || out.Comparison.Look.Max != 1 {
		t.Errorf("looks %d calls %v look %+v: a zero budget allows no extra trials", out.Looks, f.calls, out.Comparison.Look)
	}
}

func TestRunBudgetStopsExtraTrials(t *testing.T) {
	ms := manifests(1, 3, 30)
	f := newFake(3)
	f.cv["w0"], f.slow["w0"] = 0.03, 1.02
	// Each trial takes a minute of the fake clock, so a 2-minute budget
	// allows two extra trials.
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.clock = &clock
	now := func() time.Time { return clock }
	out, err := Run(context.Background(), f, ms, Options{Baselines: baselines(t, ms, 3, 2), Policy: sameSession(), Budget: 2 * time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExtraTrials != 2 {
		t.Errorf("ran %d extra trials on a 2-minute budget at ~1 minute per trial (calls %v)", out.ExtraTrials, f.calls)
	}
}

func TestRunFailureIsNeverPass(t *testing.T) {
	ms := manifests(3, 5, 5)
	f := newFake(1)
	f.failAt["w1"] = 2
	out, err := Run(context.Background(), f, ms, Options{Baselines: baselines(t, ms, 5, 2), Policy: sameSession()})
	if err != nil {
		t.Fatal(err)
	}
	if out.RunErr == nil || !strings.Contains(out.RunErr.Error(), "w1") {
		t.Fatalf("RunErr = %v, want one naming w1", out.RunErr)
	}
	if len(out.Results) != 2 || out.Results[1].Complete {
		t.Errorf("results %d, w1 complete=%v: want the partial w1 marked incomplete and w2 not run", len(out.Results), out.Results[1].Complete)
	}
	if v := out.Comparison.Verdict; v == verdict.Pass {
		t.Errorf("partial run's verdict is %s", v)
	}
}

func TestExtraTrials(t *testing.T) {
	tests := []struct{ have, max, looks, want int }{
		{5, 10, 2, 3}, {8, 10, 1, 2}, {10, 10, 1, 0}, {3, 9, 3, 2}, {5, 10, 0, 0},
	}
	for _, tt := range tests {
		if got := extraTrials(tt.have, tt.max, tt.looks); got != tt.want {
			t.Errorf("extraTrials(%d, %d, %d) = %d, want %d", tt.have, tt.max, tt.looks, got, tt.want)
		}
	}
}

// sameSession is the default policy without a between-session term: the
// fake's trials have no session offsets, and these tests are about looks,
// not about the noise model (docs/statistics.md).
func sameSession() verdict.Policy {
	p := verdict.DefaultPolicy()
	p.AssumedBetween = map[string]float64{"*": 0}
	return p
}
