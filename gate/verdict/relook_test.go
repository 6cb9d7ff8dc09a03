package verdict

import (
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

func TestLookOf(t *testing.T) {
	p := DefaultPolicy() // MaxLooks 3
	withLooks := func(l *result.Looks, trialLooks ...int) *result.Result {
		r := &result.Result{Looks: l}
		for i, lk := range trialLooks {
			r.Trials = append(r.Trials, result.Trial{Index: i, Look: lk})
		}
		return r
	}
	cases := []struct {
		name string
		rs   []*result.Result
		want Look
	}{
		{"perfgate run or import", []*result.Result{withLooks(nil, 0, 0, 0)}, Look{1, 1}},
		{"single-look gate", []*result.Result{withLooks(&result.Looks{Index: 1, Max: 1}, 0, 0)}, Look{1, 1}},
		// Declared three looks and decided at the first: still alpha/3.
		{"decided at look 1 of 3", []*result.Result{withLooks(&result.Looks{Index: 1, Max: 3}, 0, 0)}, Look{1, 3}},
		{"extra trials at look 2", []*result.Result{withLooks(&result.Looks{Index: 2, Max: 3}, 0, 0, 1)}, Look{2, 3}},
		// Shards: the later look and the larger declared count.
		{"shards", []*result.Result{withLooks(&result.Looks{Index: 1, Max: 1}, 0), withLooks(&result.Looks{Index: 3, Max: 3}, 0, 1, 2)}, Look{3, 3}},
		// An older file with extra-look trials but no looks: the policy's
		// MaxLooks is assumed.
		{"old file with extra trials", []*result.Result{withLooks(nil, 0, 0, 1)}, Look{2, 3}},
		{"nil entries", []*result.Result{nil}, Look{1, 1}},
	}
	for _, c := range cases {
		if got := LookOf(c.rs, p); got != c.want {
			t.Errorf("%s: LookOf = %+v, want %+v", c.name, got, c.want)
		}
	}
}
