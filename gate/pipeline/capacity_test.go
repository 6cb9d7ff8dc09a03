package pipeline

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/capacity"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// queueServer is a fake serving Trials with a capacity of mu req/s: at a
// rate at or below mu every request meets the SLO, above it the share
// falls as mu/rate, and an unlimited run serves mu req/s with 10 % good.
// It records every load it was asked to run.
type queueServer struct {
	mu    float64
	runs  []string // "rate@concurrency" of each trial
	fail  bool     // every request of every trial fails
	calls int
}

func (q *queueServer) Prepare(context.Context, *workload.Manifest) (result.Server, error) {
	return result.Server{Model: "m"}, nil
}

func (q *queueServer) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return &result.Result{Schema: result.Schema, Workload: result.Workload{Name: m.Name, Cell: m.Cell, Hash: m.Hash, Spec: m.Spec}, Server: srv, Complete: true}
}

func (q *queueServer) RunTrials(_ context.Context, m *workload.Manifest, res *result.Result, n int) error {
	q.calls++
	if m.IsCapacity() || m.SaturationShare > 0 {
		return errors.New("fake: asked to run a manifest timed for 1 req/s")
	}
	for k := 0; k < n; k++ {
		q.runs = append(q.runs, result.FormatRate(m.Rate)+"@"+result.FormatRate(float64(m.Concurrency)))
		total := len(m.Requests)
		share, thr := 1.0, math.Min(m.Rate, q.mu)
		switch {
		case math.IsInf(m.Rate, 1) && m.Concurrency > 0:
			thr = q.mu
			if float64(m.Concurrency) > q.mu/10 {
				share = q.mu / 10 / float64(m.Concurrency)
			}
		case math.IsInf(m.Rate, 1):
			share, thr = 0.1, q.mu
		case m.Rate > q.mu:
			share = q.mu / m.Rate
		}
		t := result.Trial{Index: len(res.Trials), Valid: true, Completed: total, DurationS: float64(total) / thr,
			Values: map[string]float64{"goodput_ratio": share, "request_throughput": thr, "ttft_ms.p99": 100 / share}}
		if q.fail {
			t.Completed, t.Failed, t.Valid, t.InvalidReason = 0, total, false, "every request failed"
			t.Values = map[string]float64{"goodput_ratio": 0, "request_throughput": 0}
			res.Trials = append(res.Trials, t)
			return errors.New("fake: every request failed")
		}
		res.Trials = append(res.Trials, t)
	}
	return nil
}

func manifestOf(t *testing.T, src string) *workload.Manifest {
	t.Helper()
	f, err := workload.Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

const fakeCapacity = `name: cap
kind: capacity
dataset: {kind: random, input_tokens: 4, output_tokens: 2}
load: {requests: 200}
slo: {ttft_ms: 500}
capacity: {goodput_share: 95%}
`

func TestCapacityTrials(t *testing.T) {
	q := &queueServer{mu: 30}
	c := Capacity{Serving: q}
	m := manifestOf(t, fakeCapacity)
	res := c.NewResult(m, result.Server{})
	if err := c.RunTrials(context.Background(), m, res, 2); err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 2 {
		t.Fatalf("%d trials, want 2 (one search each)", len(res.Trials))
	}
	for _, tr := range res.Trials {
		// The share is 30/rate above 30: it crosses 95 % at 31.6 req/s.
		got := tr.Values["capacity_rps"]
		if math.Abs(got-30/0.95)/(30/0.95) > 0.03 || tr.Values["saturation_throughput"] != 30 {
			t.Errorf("trial %d: capacity %v saturation %v, want about 31.6 and 30", tr.Index, got, tr.Values["saturation_throughput"])
		}
		if tr.Capacity == nil || int(tr.Values["capacity_probes"]) != len(tr.Capacity.Probes) || len(tr.Capacity.Probes) > 10 {
			t.Errorf("trial %d: search %+v", tr.Index, tr.Capacity)
		}
		if !tr.Valid || tr.Completed != 200*len(tr.Capacity.Probes) {
			t.Errorf("trial %d: valid %v completed %d", tr.Index, tr.Valid, tr.Completed)
		}
	}
	if q.runs[0] != "inf@0" {
		t.Errorf("first probe ran at %s, want the unlimited saturation run", q.runs[0])
	}
	// Every trial goes through the result file's checks.
	if _, err := result.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

func TestCapacityOverConcurrency(t *testing.T) {
	q := &queueServer{mu: 30}
	m := manifestOf(t, strings.Replace(fakeCapacity, "{goodput_share: 95%}", "{goodput_share: 95%, over: concurrency, max_concurrency: 64}", 1))
	res := &result.Result{}
	if err := (Capacity{Serving: q}).RunTrials(context.Background(), m, res, 1); err != nil {
		t.Fatal(err)
	}
	// Good up to concurrency 3 (mu/10), 3/c above: 95 % holds up to 3.
	if got := res.Trials[0].Values["capacity_concurrency"]; got != 3 {
		t.Errorf("capacity %v, want 3 (probes %v)", got, q.runs)
	}
	for _, r := range q.runs[1:] {
		if !strings.HasPrefix(r, "inf@") {
			t.Errorf("a concurrency probe ran at %s: want rate inf", r)
		}
	}
}

// TestCapacityNothingServedFails: a saturation probe in which every
// request failed (a server down, or failing everything with HTTP 500)
// leaves nothing to search: the run fails and its result is incomplete
// (it once said complete and exited 0, issue 20 item 5), and the search
// is kept as an invalid trial with its probe. A later probe in which
// every request failed is still data, a share of 0 (the search tests).
func TestCapacityNothingServedFails(t *testing.T) {
	q := &queueServer{mu: 30, fail: true}
	m := manifestOf(t, fakeCapacity)
	res := &result.Result{Complete: true}
	err := (Capacity{Serving: q}).RunTrials(context.Background(), m, res, 1)
	if !errors.Is(err, capacity.ErrNothingServed) || res.Complete {
		t.Fatalf("err %v, complete %v: want ErrNothingServed and an incomplete result", err, res.Complete)
	}
	tr := res.Trials[0]
	if tr.Valid || tr.Values["capacity_rps"] != 0 || len(tr.Capacity.Probes) != 1 {
		t.Errorf("trial %+v: want an invalid trial with capacity 0 after one probe", tr)
	}
}

func TestTwoStep(t *testing.T) {
	q := &queueServer{mu: 40}
	c := Capacity{Serving: q}
	m := manifestOf(t, "name: two\ndataset: {kind: random, input_tokens: 4, output_tokens: 2}\nload: {requests: 50, rate: 80%-of-saturation, concurrency: 8}\n")
	res := c.NewResult(m, result.Server{})
	ctx := context.Background()
	if err := c.RunTrials(ctx, m, res, 2); err != nil {
		t.Fatal(err)
	}
	// A second look adds trials at the same absolute rate, without
	// measuring saturation again.
	if err := c.RunTrials(ctx, m, res, 1); err != nil {
		t.Fatal(err)
	}
	want := []string{"inf@8", "32@8", "32@8", "32@8"}
	if strings.Join(q.runs, " ") != strings.Join(want, " ") {
		t.Errorf("runs %v, want %v", q.runs, want)
	}
	s := res.Saturation
	if s == nil || s.ThroughputRPS != 40 || s.RateRPS != 32 || s.Share != 0.8 || s.Requests != 50 {
		t.Errorf("saturation %+v, want 40 req/s measured and 32 req/s run", s)
	}
	if len(res.Trials) != 3 || res.Trials[2].Index != 2 {
		t.Errorf("%d trials", len(res.Trials))
	}
	if _, err := result.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

func TestCapacityPassesOtherCellsThrough(t *testing.T) {
	q := &queueServer{mu: 40}
	m := manifestOf(t, "name: plain\ndataset: {kind: random, input_tokens: 4, output_tokens: 2}\nload: {requests: 10, rate: 5}\n")
	res := &result.Result{}
	if err := (Capacity{Serving: q}).RunTrials(context.Background(), m, res, 3); err != nil {
		t.Fatal(err)
	}
	if q.calls != 1 || strings.Join(q.runs, " ") != "5@0 5@0 5@0" {
		t.Errorf("%d calls, runs %v: want the cell passed through in one call", q.calls, q.runs)
	}
}
