package bisect

import (
	"context"
	"strings"
	"testing"
)

// TestBusyRunner: an experiment measured while a neighbour loaded the
// runner decides nothing: the search stops where it met the busy blocks,
// names no commit, says the runner was busy and what to do, and spends
// no more blocks on that runner. Without the hold (the same searches
// with the health records dropped) each names a wrong commit: the
// neighbour slows commit 8, the first midpoint, by 10 %, and the search
// named c08 although commit 11 made TPOT worse; slowing the bad end, it
// named c11 and c16.
func TestBusyRunner(t *testing.T) {
	tests := []struct {
		name      string
		busy      map[int]float64
		wantSteps int
		wantIn    string
	}{
		{"busy midpoint", map[int]float64{8: 1.10}, 1, "experiment of c08 against c00"},
		{"busy bad end", map[int]float64{16: 1.10}, 0, "experiment of c16 against c00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newModelBench(gpuRunner(culpritAt(16, map[int]float64{11: 1.10})), 5)
			b.busy = tt.busy
			res, err := Search(context.Background(), commitsOf(16), b, Options{Metric: "tpot_ms.p50"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != NotFound || len(res.Culprits) != 0 {
				t.Fatalf("status %s, culprits %+v: want none named on a busy runner", res.Status, res.Culprits)
			}
			if len(res.Steps) != tt.wantSteps {
				t.Fatalf("%d steps, want %d", len(res.Steps), tt.wantSteps)
			}
			for _, want := range []string{"no commit named: the runner was busy", tt.wantIn,
				"ran while the runner was unhealthy (load above the 2 CPUs)", "rerun on an idle runner", "pairs/"} {
				if !strings.Contains(res.Message, want) {
					t.Errorf("message %q: want %q", res.Message, want)
				}
			}
			// The first look of each experiment, nothing more.
			if want := 16 * (1 + 2*tt.wantSteps); res.Blocks != want {
				t.Errorf("%d blocks, want %d (one look per experiment, then stop)", res.Blocks, want)
			}
			if tt.wantSteps > 0 {
				st := res.Steps[0]
				if st.Decision != Undecided || !strings.Contains(st.Why, "the runner was busy") {
					t.Errorf("step %+v: want undecided, runner busy", st)
				}
				if len(res.Open) == 0 || res.Open[0].Lo != 0 || res.Open[0].Hi != 16 {
					t.Errorf("open %+v: want the whole range left open", res.Open)
				}
			}
		})
	}
}
