package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestLooks pins the loop both gate and ab run: which look it stops at,
// and why, for each way a look can end.
func TestLooks(t *testing.T) {
	undecided := &verdict.Comparison{Verdict: verdict.Inconclusive, Look: verdict.Look{Index: 1, Max: 3},
		Workloads: []verdict.Workload{{Cell: "a", Status: verdict.Compared}},
		Cells: []verdict.Cell{{Workload: "a", Gated: true, Outcome: verdict.Inconclusive, Limit: verdict.LimitCandidate,
			Baseline: verdict.Arm{N: 3}, Candidate: verdict.Arm{N: 3}}}}
	if len(undecided.NeedsTrials()) == 0 {
		t.Fatal("fixture: the undecided comparison needs no trials")
	}
	pass := &verdict.Comparison{Verdict: verdict.Pass}
	boom := errors.New("server died")
	tests := []struct {
		name     string
		maxLooks int
		firstErr error
		// verdicts by look (1-based); adds by look (2-based).
		verdicts  []*verdict.Comparison
		adds      []int
		extendErr error
		wantLook  int
		wantRun   error
		wantErr   bool
	}{
		{"decided at once", 3, nil, []*verdict.Comparison{pass}, nil, nil, 1, nil, false},
		{"one look only", 1, nil, []*verdict.Comparison{undecided}, nil, nil, 1, nil, false},
		{"decided at look 2", 3, nil, []*verdict.Comparison{undecided, pass}, []int{2}, nil, 2, nil, false},
		{"undecided to the last look", 3, nil, []*verdict.Comparison{undecided, undecided, undecided}, []int{1, 1}, nil, 3, nil, false},
		{"nothing more to add", 3, nil, []*verdict.Comparison{undecided}, []int{0}, nil, 1, nil, false},
		{"first run failed", 3, boom, []*verdict.Comparison{undecided}, nil, nil, 1, boom, false},
		{"extension run failed", 3, nil, []*verdict.Comparison{undecided, undecided}, []int{1}, boom, 2, boom, false},
		{"extend itself failed", 3, nil, []*verdict.Comparison{undecided}, []int{0}, boom, 1, nil, true},
	}
	for _, tt := range tests {
		judged, extended := 0, 0
		judge := func(look verdict.Look, runErr error) (*verdict.Comparison, error) {
			judged++
			if look.Index != judged || look.Max != tt.maxLooks {
				t.Errorf("%s: judged look %+v as the %d-th", tt.name, look, judged)
			}
			return tt.verdicts[judged-1], nil
		}
		extend := func(_ context.Context, look verdict.Look, _ *verdict.Comparison) (int, error) {
			extended++
			if look.Index != extended+1 {
				t.Errorf("%s: extended for look %+v as the %d-th", tt.name, look, extended)
			}
			return tt.adds[extended-1], tt.extendErr
		}
		cmp, look, runErr, err := Looks(context.Background(), tt.maxLooks, tt.firstErr, judge, extend)
		if look.Index != tt.wantLook || !errors.Is(runErr, tt.wantRun) || (runErr == nil) != (tt.wantRun == nil) || (err != nil) != tt.wantErr {
			t.Errorf("%s: look %d, run error %v, error %v; want look %d, %v, error %v", tt.name, look.Index, runErr, err, tt.wantLook, tt.wantRun, tt.wantErr)
		}
		if err == nil && cmp != tt.verdicts[look.Index-1] {
			t.Errorf("%s: returned a comparison other than the last look's", tt.name)
		}
	}
}
