package verdict

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestCandidateStarts: a candidate whose trials carry two server starts
// is two sessions (its level the mean of the starts' means, its
// between-session term halved), and the same trials without starts (a
// file written before trials.restarts) are one session, as before.
func TestCandidateStarts(t *testing.T) {
	base := newResult("w", map[string][]float64{"tpot_ms.p50": {10, 10.1, 9.9, 10, 10.05, 9.95}})
	vals := map[string][]float64{"tpot_ms.p50": {10, 10.1, 10.05, 10.4, 10.5, 10.45}}
	p := DefaultPolicy()
	p.AssumedBetween = map[string]float64{"*": 0.02}
	one, err := Compare([]*result.Result{base}, []*result.Result{newResult("w", vals)}, p, Look{})
	if err != nil {
		t.Fatal(err)
	}
	split := newResult("w", vals)
	for i := range split.Trials {
		split.Trials[i].Start = 1 + i/3
	}
	two, err := Compare([]*result.Result{base}, []*result.Result{split}, p, Look{})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := findCell(t, one, "tpot_ms.p50"), findCell(t, two, "tpot_ms.p50")
	if c1.Candidate.Sessions != 0 || c2.Candidate.Sessions != 2 {
		t.Errorf("candidate sessions %d and %d, want 0 (one) and 2", c1.Candidate.Sessions, c2.Candidate.Sessions)
	}
	// Between variance log1p(0.02²): one session carries it twice (both
	// arms), two starts 1/2 + 1.
	bv := math.Log1p(0.02 * 0.02)
	if c1.Noise.SE*c1.Noise.SE < 2*bv || c2.Noise.SE*c2.Noise.SE >= 2*bv || c2.Noise.SE*c2.Noise.SE < 1.5*bv {
		t.Errorf("SE² %.3g (one session) and %.3g (two starts); between-session variance %.3g", c1.Noise.SE*c1.Noise.SE, c2.Noise.SE*c2.Noise.SE, bv)
	}
	// The offset between the starts (+4 %) is not trial noise: the
	// within-session spread pooled around each start's mean is smaller.
	if c2.Noise.Sigma >= c1.Noise.Sigma {
		t.Errorf("within-session sigma %.4g with starts, %.4g without: the starts' offset counted as trial noise", c2.Noise.Sigma, c1.Noise.Sigma)
	}
}

// TestBetweenLimitNamesRestarts: a cell only the between-session noise
// keeps undecided names trials.restarts among what would decide it.
func TestBetweenLimitNamesRestarts(t *testing.T) {
	vals := map[string][]float64{"tpot_ms.p50": {10, 10.1, 9.9, 10, 10.05}}
	p := DefaultPolicy()
	p.AssumedBetween = map[string]float64{"*": 0.08}
	cmp, err := Compare([]*result.Result{newResult("w", vals)}, []*result.Result{newResult("w", vals)}, p, Look{})
	if err != nil {
		t.Fatal(err)
	}
	c := findCell(t, cmp, "tpot_ms.p50")
	if c.Limit != LimitBetween || !strings.Contains(strings.Join(c.Warnings, "\n"), "`trials.restarts`") {
		t.Errorf("limit %q, warnings %q: want the between-session limit naming trials.restarts", c.Limit, c.Warnings)
	}
}
