package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/workload"
)

// TestStartShare: n trials over k starts, the first n%k one more each,
// adding up to n.
func TestStartShare(t *testing.T) {
	for _, tt := range []struct {
		n, starts int
		want      []int
	}{
		{10, 5, []int{2, 2, 2, 2, 2}}, {7, 3, []int{3, 2, 2}}, {5, 1, []int{5}}, {2, 3, []int{1, 1, 0}},
	} {
		sum := 0
		for k := 1; k <= tt.starts; k++ {
			if got := StartShare(tt.n, tt.starts, k); got != tt.want[k-1] {
				t.Errorf("StartShare(%d, %d, %d) = %d, want %d", tt.n, tt.starts, k, got, tt.want[k-1])
			}
			sum += StartShare(tt.n, tt.starts, k)
		}
		if sum != tt.n {
			t.Errorf("%d over %d starts adds up to %d", tt.n, tt.starts, sum)
		}
	}
}

// TestPlannedStarts: the option wins, else the workloads' largest
// trials.restarts; capped at the fewest first-look trials; one session
// with a warning naming server.command when the server cannot restart.
func TestPlannedStarts(t *testing.T) {
	restart := func() (context.Context, Trials, error) { return nil, nil, nil }
	ms := []*workload.Manifest{{}, {}}
	ms[0].Trials.Restarts, ms[1].Trials.Restarts = 2, 4
	for _, tt := range []struct {
		name     string
		o        Options
		min      int
		want     int
		warnLike string
	}{
		{"workloads' largest", Options{Restart: restart}, 10, 4, ""},
		{"option wins", Options{Restarts: 3, Restart: restart}, 10, 3, ""},
		{"capped at trials", Options{Restarts: 8, Restart: restart}, 5, 5, "raise trials.min"},
		{"attached", Options{Restarts: 3}, 10, 1, "server.command"},
	} {
		b := []budget{{min: tt.min, max: tt.min}, {min: tt.min + 2, max: tt.min + 2}}
		got, warnings := plannedStarts(ms, b, tt.o)
		if got != tt.want || (tt.warnLike == "") != (len(warnings) == 0) || (tt.warnLike != "" && !strings.Contains(warnings[0], tt.warnLike)) {
			t.Errorf("%s: %d starts, warnings %q; want %d, %q", tt.name, got, warnings, tt.want, tt.warnLike)
		}
	}
}
