package trace

import (
	"errors"
	"math"
	"sort"
)

// OpChange is one kernel's time per step in two traces. Times are
// microseconds per step; Change is percent (0 when the kernel is new).
type OpChange struct {
	Name      string  `json:"name"`
	Baseline  float64 `json:"baseline_us_per_step"`
	Candidate float64 `json:"candidate_us_per_step"`
	Delta     float64 `json:"delta_us_per_step"`
	Change    float64 `json:"change"`
	// CallsPerStep are the candidate's calls per step (a kernel launched
	// more often tells a different story than one that got slower).
	BaseCalls float64 `json:"baseline_calls_per_step"`
	CandCalls float64 `json:"candidate_calls_per_step"`
}

// Diff compares two summaries kernel by kernel as time per engine step,
// which keeps traces of different lengths comparable, and returns the
// kernels ordered by how much time per step they added (largest first;
// kernels that got faster last). It is an error when a summary has no
// steps to divide by.
func Diff(base, cand *Summary) ([]OpChange, error) {
	if base == nil || cand == nil {
		return nil, errors.New("trace diff: a summary is missing")
	}
	for _, s := range []*Summary{base, cand} {
		if s.Steps == 0 {
			return nil, errors.New("trace " + s.File + ": no engine steps (execute_model or ProfilerStep#) to compare per step")
		}
	}
	byName := map[string]*OpChange{}
	get := func(n string) *OpChange {
		if c, ok := byName[n]; ok {
			return c
		}
		c := &OpChange{Name: n}
		byName[n] = c
		return c
	}
	for _, op := range base.Ops {
		c := get(op.Name)
		c.Baseline = op.TotalUS / float64(base.Steps)
		c.BaseCalls = float64(op.Calls) / float64(base.Steps)
	}
	for _, op := range cand.Ops {
		c := get(op.Name)
		c.Candidate = op.TotalUS / float64(cand.Steps)
		c.CandCalls = float64(op.Calls) / float64(cand.Steps)
	}
	out := make([]OpChange, 0, len(byName))
	for _, c := range byName {
		c.Delta = c.Candidate - c.Baseline
		if c.Baseline > 0 {
			c.Change = 100 * c.Delta / c.Baseline
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Delta != out[j].Delta {
			return out[i].Delta > out[j].Delta
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Top returns the n kernels whose time per step moved most, either way,
// in the order of Diff.
func Top(changes []OpChange, n int) []OpChange {
	idx := make([]int, len(changes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return math.Abs(changes[idx[a]].Delta) > math.Abs(changes[idx[b]].Delta)
	})
	if n < len(idx) {
		idx = idx[:n]
	}
	sort.Ints(idx)
	out := make([]OpChange, len(idx))
	for i, k := range idx {
		out[i] = changes[k]
	}
	return out
}
