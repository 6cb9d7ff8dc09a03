package verdict

import "github.com/perfgate/perfgate/gate/result"

// The candidate's server starts. A candidate whose trials were spread
// over K starts of a launched server (workload trials.restarts) carries K
// sessions, each with its own session offset, and the verdict treats it as
// it treats a baseline of K sessions: its level is the mean of its
// session means, whose variance is σw²·hc/K + σb²/K (hc the mean of 1/n
// over its starts), and the within-session variance is pooled around each
// start's own mean, so the offsets between starts do not count as trial
// noise. With the baseline's m sessions the estimate's variance is
//
//	σw²·(hc/K + h/m) + σb²·(1/K + 1/m)
//
// which for K = 1 is the one-session formula of between.go. This is what
// lets a PR check decide below the between-session noise without a second
// build: the candidate's σb² term shrinks as 1/K.

// trialStarts maps the trial index of each trial of r to its server start;
// nil when r is one session (no trial carries a start), as every result
// written before trials.restarts existed is.
func trialStarts(r *result.Result) map[int]int {
	var out map[int]int
	for _, t := range r.Trials {
		if t.Start > 0 {
			if out == nil {
				out = map[int]int{}
			}
			out[t.Index] = t.Start
		}
	}
	return out
}

// candGroup is one server start's candidate values and trial indices.
type candGroup struct {
	x   []float64
	idx []int
}

// candGroups splits the candidate's values by server start, in the order
// the starts first appear; one group when the trials carry no start.
func (pc *pendingCell) candGroups() []candGroup {
	if len(pc.cstart) == 0 || len(pc.ic) != len(pc.xc) {
		return []candGroup{{pc.xc, pc.ic}}
	}
	pos := map[int]int{}
	var out []candGroup
	for i, v := range pc.xc {
		s := pc.cstart[pc.ic[i]]
		k, ok := pos[s]
		if !ok {
			k = len(out)
			pos[s] = k
			out = append(out, candGroup{})
		}
		out[k].x, out[k].idx = append(out[k].x, v), append(out[k].idx, pc.ic[i])
	}
	return out
}

// candSessions is the candidate's values by server start (candGroups).
func (pc *pendingCell) candSessions() [][]float64 {
	gs := pc.candGroups()
	out := make([][]float64, len(gs))
	for i, g := range gs {
		out[i] = g.x
	}
	return out
}

// candShape returns the candidate's number of starts with trials, k, and
// hc, the mean of 1/n over them: its level's within-session variance is
// σw²·hc/k and its between-session variance σb²/k. One session of n
// trials gives k = 1, hc = 1/n.
func (pc *pendingCell) candShape() (k, hc float64) { return shapeOf(pc.candSessions()) }

// candLevel is the candidate's level on the test scale: the mean of its
// starts' means (the mean of its trials for one session).
func (pc *pendingCell) candLevel() float64 { return levelOf(pc.candSessions()) }

// allSessions is every session of both arms: the baseline's, then the
// candidate's starts.
func (pc *pendingCell) allSessions() [][]float64 {
	return append(append([][]float64(nil), pc.xbs...), pc.candSessions()...)
}

// samplesByStart is samples split by server start, in the order the
// starts first appear: one slice for a result of one session.
func samplesByStart(r *result.Result, id string) ([][]float64, [][]int) {
	v, idx := samples(r, id)
	st := trialStarts(r)
	if st == nil {
		return [][]float64{v}, [][]int{idx}
	}
	pos := map[int]int{}
	var vs [][]float64
	var is [][]int
	for i, x := range v {
		s := st[idx[i]]
		k, ok := pos[s]
		if !ok {
			k = len(vs)
			pos[s] = k
			vs, is = append(vs, nil), append(is, nil)
		}
		vs[k], is[k] = append(vs[k], x), append(is[k], idx[i])
	}
	return vs, is
}
