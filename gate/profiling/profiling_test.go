package profiling

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

func TestChoose(t *testing.T) {
	a, b := &workload.Manifest{Cell: "a"}, &workload.Manifest{Cell: "b"}
	cmd := &workload.Manifest{Cell: "cmd", Kind: workload.KindCommand, Profiling: trace.Always}
	regressedB := &verdict.Comparison{Cells: []verdict.Cell{{Workload: "b", Gated: true, Outcome: verdict.Regression}}}
	pass := &verdict.Comparison{}
	alwaysA := &workload.Manifest{Cell: "a", Profiling: trace.Always}
	neverB := &workload.Manifest{Cell: "b", Profiling: trace.Never}
	capB := &workload.Manifest{Cell: "b", Kind: workload.KindCapacity}
	shareB := &workload.Manifest{Cell: "b", SaturationShare: 0.8}
	regressedCapAndA := &verdict.Comparison{Cells: []verdict.Cell{{Workload: "b", Gated: true, Outcome: verdict.Regression}, {Workload: "a", Gated: true, Outcome: verdict.Regression}}}
	for _, tc := range []struct {
		name string
		c    *verdict.Comparison
		ms   []*workload.Manifest
		def  trace.Mode
		want string
	}{
		{"regression, on-regression: the worst", regressedB, []*workload.Manifest{a, b}, trace.OnRegression, "b"},
		{"regression, never", regressedB, []*workload.Manifest{a, b}, trace.Never, ""},
		{"pass, on-regression", pass, []*workload.Manifest{a, b}, trace.OnRegression, ""},
		{"pass, always: the first serving one", pass, []*workload.Manifest{cmd, a, b}, trace.Always, "a"},
		{"the workload's never overrides the file", regressedB, []*workload.Manifest{a, neverB}, trace.OnRegression, ""},
		{"the workload's always overrides never", regressedB, []*workload.Manifest{alwaysA, neverB}, trace.Never, "a"},
		{"a capacity cell is skipped for the next regressed one", regressedCapAndA, []*workload.Manifest{a, capB}, trace.OnRegression, "a"},
		{"a share-of-saturation cell is not profiled", regressedB, []*workload.Manifest{shareB}, trace.Always, ""},
	} {
		got := ""
		if m := Choose(tc.c, tc.ms, tc.def); m != nil {
			got = m.Cell
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestBound(t *testing.T) {
	m := &workload.Manifest{Cell: "a", Requests: make([]workload.Request, 10), Warmups: make([]workload.Request, 3)}
	b := Bound(m, 4)
	if len(b.Requests) != 4 || b.Warmups != nil || len(m.Requests) != 10 || len(m.Warmups) != 3 {
		t.Errorf("bound %d/%d, original %d/%d", len(b.Requests), len(b.Warmups), len(m.Requests), len(m.Warmups))
	}
	if b := Bound(m, 0); len(b.Requests) != 10 {
		t.Errorf("0 keeps all: %d", len(b.Requests))
	}
}

func TestNewest(t *testing.T) {
	t0 := time.Unix(1000, 0)
	before := map[string]bool{"old.pt.trace.json.gz": true}
	for _, tc := range []struct {
		name string
		now  []Entry
		want string
	}{
		{"nothing new", []Entry{{Name: "old.pt.trace.json.gz", ModTime: t0.Add(time.Hour)}}, ""},
		{"not a trace", []Entry{{Name: "notes.txt", ModTime: t0}}, ""},
		{"the newest new one", []Entry{{Name: "r0.pt.trace.json.gz", ModTime: t0}, {Name: "r1.pt.trace.json.gz", ModTime: t0.Add(time.Second)}, {Name: "old.pt.trace.json.gz", ModTime: t0.Add(time.Hour)}}, "r1.pt.trace.json.gz"},
		{"ties: the larger name", []Entry{{Name: "b.json", ModTime: t0}, {Name: "a.json", ModTime: t0}}, "b.json"},
	} {
		e, ok := Newest(before, tc.now)
		if (tc.want == "") == ok || e.Name != tc.want {
			t.Errorf("%s: %+v %v, want %q", tc.name, e, ok, tc.want)
		}
	}
	if Settled(Entry{}, Entry{Name: "a", Size: 5}) || Settled(Entry{Name: "a", Size: 4}, Entry{Name: "a", Size: 5}) || Settled(Entry{Name: "a"}, Entry{Name: "a"}) || !Settled(Entry{Name: "a", Size: 5}, Entry{Name: "a", Size: 5}) {
		t.Error("Settled")
	}
}

// failTrials fails every trial.
type failTrials struct{}

func (failTrials) Prepare(context.Context, *workload.Manifest) (result.Server, error) {
	return result.Server{}, nil
}
func (failTrials) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return &result.Result{}
}
func (failTrials) RunTrials(context.Context, *workload.Manifest, *result.Result, int) error {
	return errors.New("boom")
}

// TestTrialStopsAfterAFailedTrial: the profiler is stopped even when the
// trial fails, with the API key; a refused start says what the engine
// answered.
func TestTrialStopsAfterAFailedTrial(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer ts.Close()
	p := engine.Must(engine.VLLM).Profiler
	err := Trial{URL: ts.URL + "/", APIKey: "k", Profiler: p, Trials: failTrials{}}.Run(context.Background(), &workload.Manifest{Cell: "w"})
	if err == nil || !strings.Contains(err.Error(), "the profiled trial of w: ") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err %v", err)
	}
	if strings.Join(calls, ",") != "POST /start_profile Bearer k,POST /stop_profile Bearer k" {
		t.Errorf("calls %v", calls)
	}
	nf := httptest.NewServer(http.NotFoundHandler())
	defer nf.Close()
	err = Trial{URL: nf.URL, Profiler: p, Trials: failTrials{}}.Run(context.Background(), &workload.Manifest{Cell: "w"})
	if err == nil || !strings.Contains(err.Error(), "POST /start_profile: 404") || !strings.Contains(err.Error(), "VLLM_TORCH_PROFILER_DIR") {
		t.Errorf("404: %v", err)
	}
	if err := (Trial{}).Run(context.Background(), &workload.Manifest{}); err == nil {
		t.Error("no profiler: no error")
	}
}
