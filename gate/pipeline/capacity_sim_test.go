package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// The simulated server of these tests is a seat-limited engine with a
// constant step: every step takes capStep whatever it holds (no per-seq,
// per-token or prefill cost, no jitter), a request takes one seat of
// max_num_seqs for capTokens steps (the prefill step samples its first
// token), and waiting requests are admitted at step starts in arrival
// order. Its capacity under a TTFT SLO therefore follows from its
// parameters and the arrival times alone, which capacityOf computes.
const (
	capStep   = 5 * time.Millisecond
	capTokens = 16
	capSeats  = 4
	capTTFT   = 250.0 // ms
)

func capacitySim(t *testing.T, seats int) (*sim.Server, string) {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxNumSeqs = seats
	cfg.StepBase = sim.Duration(capStep)
	cfg.DecodeFixed, cfg.DecodePerSeq, cfg.PrefillPerToken, cfg.PerContextTokenNs, cfg.JitterCV = 0, 0, 0, 0, 0
	srv := sim.New(cfg)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return srv, ts.URL
}

func capacityManifest(t *testing.T, src string) *workload.Manifest {
	t.Helper()
	f, err := workload.Parse("cap.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

// capacityWorkload: constant spacing (burstiness inf), 60 requests per
// probe. Above the engine's service rate mu the backlog, and with it
// TTFT, grows linearly over the probe, so the share meeting the SLO
// falls smoothly and the capacity lies a little above mu; the SLO is
// large against the few milliseconds of timer and scheduling noise of a
// loaded machine, so that noise moves the capacity by a percent or two.
const capacityWorkload = `name: cap
kind: capacity
dataset: {kind: random, input_tokens: 16, output_tokens: 16, seed: 11}
load: {requests: 60, burstiness: inf}
warmups: 4
trials: {min: 1, max: 1}
slo: {ttft_ms: 250}
capacity: {goodput_share: 95%, max_probes: 10}
`

// ttfts replays the model engine over arrivals (seconds, sorted) and
// returns each request's TTFT in ms.
func ttfts(arrivals []float64, seats int) []float64 {
	step := capStep.Seconds()
	out := make([]float64, len(arrivals))
	var running []int // steps left per seat in use
	next, t := 0, 0.0
	for next < len(arrivals) || len(running) > 0 {
		if len(running) == 0 && arrivals[next] > t {
			t = arrivals[next] // an idle engine starts a step at the arrival
		}
		for next < len(arrivals) && arrivals[next] <= t && len(running) < seats {
			out[next] = (t + step - arrivals[next]) * 1000
			running = append(running, capTokens)
			next++
		}
		t += step
		kept := running[:0]
		for _, r := range running {
			if r > 1 {
				kept = append(kept, r-1)
			}
		}
		running = kept
	}
	return out
}

// shareAt is the model's goodput share at rate r for m's arrivals.
func shareAt(m *workload.Manifest, r float64, seats int) float64 {
	at := m.At(r, 0)
	arr := make([]float64, len(at.Requests))
	for i, q := range at.Requests {
		arr[i] = q.Arrival.Seconds()
	}
	sort.Float64s(arr)
	good := 0
	for _, v := range ttfts(arr, seats) {
		if v <= capTTFT {
			good++
		}
	}
	return float64(good) / float64(len(arr))
}

// capacityOf is the model's capacity: the largest rate, on a fine grid,
// at which the share holds for the manifest's own arrivals.
func capacityOf(m *workload.Manifest, seats int) float64 {
	best := 0.0
	for r := 1.0; r < 400; r *= 1.001 {
		if shareAt(m, r, seats) >= 0.95 {
			best = r
		}
	}
	return best
}

func capacityRunner(t *testing.T, url string) pipeline.Capacity {
	t.Helper()
	// The dispatch-lag limit is raised: on a loaded shared test machine the
	// client wakes late now and then, which these tests tolerate (TTFT is
	// measured from the actual send) rather than discard the trial.
	r, err := loadgen.New(loadgen.Config{URL: url, Warmups: -1, CacheSalt: true,
		Limits: metrics.Limits{FailureShare: metrics.DefaultLimits.FailureShare, DispatchLagMs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return pipeline.Capacity{Serving: r}
}

// seatModel is a serving Trials that replays the seat-limited engine of
// these tests (ttfts) over each trial's arrivals instead of running it on
// a machine: a probe's trial is exactly what the model's engine, clocked
// by its own parameters, would serve. A loaded machine that stalls the
// real-time simulator makes it serve slower than its parameters say (once
// 38 req/s of the model's 50); the replay holds the search to the model.
type seatModel struct{ seats int }

func (seatModel) Prepare(context.Context, *workload.Manifest) (result.Server, error) {
	return result.Server{Model: "seat-model"}, nil
}

func (seatModel) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return &result.Result{Schema: result.Schema, Workload: result.Workload{Name: m.Name, Cell: m.Cell, Hash: m.Hash, Spec: m.Spec},
		Server: srv, Complete: true}
}

func (s seatModel) RunTrials(_ context.Context, m *workload.Manifest, res *result.Result, n int) error {
	if m.IsCapacity() || m.SaturationShare > 0 || m.Concurrency > 0 {
		return fmt.Errorf("seat model: asked for %s at concurrency %d; it replays open-loop arrivals only", m.Cell, m.Concurrency)
	}
	arr := make([]float64, len(m.Requests))
	for i, q := range m.Requests {
		arr[i] = q.Arrival.Seconds()
	}
	sort.Float64s(arr)
	tt := ttfts(arr, s.seats)
	good, end := 0, 0.0
	for i, v := range tt {
		if v <= capTTFT {
			good++
		}
		// The first token ends the first of capTokens steps.
		end = math.Max(end, arr[i]+v/1000+float64(capTokens-1)*capStep.Seconds())
	}
	sorted := append([]float64(nil), tt...)
	sort.Float64s(sorted)
	p99 := sorted[int(math.Ceil(0.99*float64(len(sorted))))-1]
	for range n {
		res.Trials = append(res.Trials, result.Trial{Index: len(res.Trials), Valid: true, Completed: len(arr), DurationS: end,
			Values: map[string]float64{"goodput_ratio": float64(good) / float64(len(arr)),
				"request_throughput": float64(len(arr)) / end, "ttft_ms.p99": p99}})
	}
	return nil
}

// searchOnce runs one capacity search of m and logs its probes.
func searchOnce(t *testing.T, c pipeline.Capacity, m *workload.Manifest) result.Trial {
	t.Helper()
	res, err := pipeline.Record(context.Background(), c, []*workload.Manifest{m}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res[0].Trials[0]
	t.Logf("search: capacity %.2f req/s [%.2f, %.2f], saturation %.2f req/s, %d probes", tr.Values["capacity_rps"], tr.Capacity.Low, tr.Capacity.High, tr.Capacity.Saturation, len(tr.Capacity.Probes))
	for _, p := range tr.Capacity.Probes {
		t.Logf("  probe load %.2f unlimited %v: %d/%d good, model share %.3f, ttft p99 %.1f ms", p.Load, p.Unlimited, p.Good, p.Total, shareAt(m, p.Load, capSeats), p.Latency["ttft_ms.p99"])
	}
	return tr
}

// TestCapacitySearchMatchesTheModel runs the search against the seat-
// limited engine's model, replayed over each probe's own arrivals
// (seatModel), and checks it lands within 3 % of the capacity the
// model's parameters give (capacityOf, on a fine grid) in at most 10
// probes, with the saturation probe serving the engine's service rate.
// The same search against the real-time simulator, over HTTP, is
// TestWorseBatchingFailsCapacityOnly's, held to direction and size.
func TestCapacitySearchMatchesTheModel(t *testing.T) {
	m := capacityManifest(t, capacityWorkload)
	want := capacityOf(m, capSeats)
	mu := float64(capSeats) / (capTokens * capStep.Seconds())
	t.Logf("model: service rate %.1f req/s, capacity under TTFT <= %v ms for 95%%: %.2f req/s", mu, capTTFT, want)
	if !(want > mu && want < 1.5*mu) {
		t.Fatalf("model capacity %.2f outside (1, 1.5) x the service rate %.1f: the parameters do not test the knee", want, mu)
	}
	tr := searchOnce(t, pipeline.Capacity{Serving: seatModel{capSeats}}, m)
	if got := tr.Values["capacity_rps"]; math.Abs(got-want)/want > 0.03 {
		t.Errorf("capacity %.2f req/s is %.1f%% from the model's %.2f", got, 100*math.Abs(got-want)/want, want)
	}
	if n := len(tr.Capacity.Probes); n > 10 {
		t.Errorf("%d probes, want at most 10", n)
	}
	if sat := tr.Values["saturation_throughput"]; math.Abs(sat-mu)/mu > 0.01 {
		t.Errorf("saturation throughput %.2f req/s, the engine serves %.1f", sat, mu)
	}
}

// TestWorseBatchingFailsCapacityOnly is the gate's point: a candidate with
// fewer seats (max_num_seqs 1 instead of 4) is as fast as the baseline at
// a low rate, where requests never overlap, so a fixed low-rate workload
// passes; its service rate falls to a quarter and its capacity with it,
// and the capacity workload fails on capacity_rps.
//
// It runs the real-time simulator over HTTP, so it is held to direction
// and size, with an effect a loaded host cannot hide: at two seats
// instead of one a 2-core machine at load 20 left the fall undecided
// (-53 %, trials from 9 to 125 req/s). Three searches per arm: with two,
// a capacity falling by 75 % was once left INCONCLUSIVE (two trials per
// arm leave two degrees of freedom, and at the family-wise alpha of ten
// gated cells their t quantile is above 20). Whether three trials decide
// it at that alpha on a busy host is a rate, the verdict's seeded tests'
// business; an undecided capacity passes here only when it fell by more
// than half.
func TestWorseBatchingFailsCapacityOnly(t *testing.T) {
	capa := capacityManifest(t, `name: cap
kind: capacity
dataset: {kind: random, input_tokens: 16, output_tokens: 16, seed: 11}
load: {requests: 24, burstiness: inf}
warmups: 4
trials: {min: 3, max: 3}
slo: {ttft_ms: 250}
capacity: {goodput_share: 95%, max_probes: 4, resolution: 10%}
`)
	// 200 ms apart, 80 ms each: one seat serves them without a wait.
	low := capacityManifest(t, `name: low
dataset: {kind: random, input_tokens: 16, output_tokens: 16, seed: 12}
load: {requests: 10, rate: 5, burstiness: inf}
warmups: 2
trials: {min: 3, max: 3}
gate:
  - {metric: ttft_ms.p99, gated: false}
`)
	ms := []*workload.Manifest{capa, low}
	base, out := worseBatching(t, ms)
	for _, w := range out.Comparison.Workloads {
		t.Logf("workload %s: %s %s (%d/%d valid trials, excluded %v)", w.Cell, w.Status, w.Message, w.BaselineTrials, w.CandidateTrials, w.Excluded)
	}
	for _, r := range append(base, out.Results...) {
		for _, tr := range r.Trials {
			if tr.Capacity != nil {
				t.Logf("%s trial %d: capacity %.2f req/s in %d probes", r.Workload.Cell, tr.Index, tr.Capacity.Capacity, len(tr.Capacity.Probes))
			}
		}
	}
	var capCell *verdict.Cell
	for i, cell := range out.Comparison.Cells {
		if !cell.Gated {
			continue
		}
		t.Logf("%s %s: %s (%+.1f%%)", cell.Workload, cell.Metric, cell.Outcome, cell.Change)
		if cell.Workload == "low" && cell.Outcome == verdict.Regression {
			t.Errorf("low-rate workload: %s regressed by %+.1f%%, but the candidate only batches worse at high load", cell.Metric, cell.Change)
		}
		if cell.Workload == "cap" && cell.Metric == "capacity_rps" {
			capCell = &out.Comparison.Cells[i]
		}
	}
	if capCell == nil || !(capCell.Outcome == verdict.Regression || capCell.Outcome == verdict.Inconclusive && capCell.Change < -50) {
		t.Errorf("capacity_rps: %+v, want a regression (or undecided, below -50 %%)", capCell)
	}
}

// capFewSeats is the candidate's max_num_seqs in the worse-batching tests:
// a quarter of the baseline's service rate.
const capFewSeats = 1

// worseBatching records ms as the baseline against a simulator with
// capSeats seats, then runs them as the candidate against the same
// simulator with capFewSeats.
func worseBatching(t *testing.T, ms []*workload.Manifest) ([]*result.Result, *pipeline.Outcome) {
	t.Helper()
	srv, url := capacitySim(t, capSeats)
	c := capacityRunner(t, url)
	ctx := context.Background()
	base, err := pipeline.Record(ctx, c, ms, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Update(func(cfg *sim.Config) { cfg.MaxNumSeqs = capFewSeats }); err != nil {
		t.Fatal(err)
	}
	policy := verdict.DefaultPolicy()
	policy.MinTrials = 2
	policy.AssumedBetween = map[string]float64{"*": 0} // one server start for both arms
	out, err := pipeline.Run(ctx, c, ms, pipeline.Options{Baselines: base, Policy: policy})
	if err != nil || out.RunErr != nil {
		t.Fatal(err, out.RunErr)
	}
	return base, out
}
