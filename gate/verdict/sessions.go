package verdict

import (
	"fmt"
	"sort"

	"github.com/perfgate/perfgate/gate/result"
)

// sessionsByCell indexes the baseline's results by workload cell. Several
// results of one cell are several server sessions of one baseline (the
// history's current segment), ordered by start time so that the session
// numbers in the comparison are stable.
func sessionsByCell(rs []*result.Result) (map[string][]*result.Result, error) {
	m := map[string][]*result.Result{}
	for i, r := range rs {
		if r == nil {
			return nil, fmt.Errorf("baseline[%d]: nil result", i)
		}
		m[r.Workload.Cell] = append(m[r.Workload.Cell], r)
	}
	for _, s := range m {
		sort.SliceStable(s, func(i, j int) bool { return s[i].StartedAt.Before(s[j].StartedAt) })
		for i := 1; i < len(s); i++ {
			if s[i] == s[i-1] {
				return nil, fmt.Errorf("baseline: the same result of workload cell %q given twice", s[i].Workload.Cell)
			}
		}
	}
	return m, nil
}

// matchSessions applies matchWorkload to every session of the baseline:
// all of them must be comparable with the candidate (a session that is
// not decides the workload's status, naming the session). Warnings are
// merged without repeats, each session's invalid trials listed with its
// number, and the provenance and age are those of the newest session.
func matchSessions(name string, bs []*result.Result, c *result.Result, p *Policy) (Workload, *cellRules, error) {
	if len(bs) <= 1 {
		var b *result.Result
		if len(bs) == 1 {
			b = bs[0]
		}
		return matchWorkload(name, b, c, p)
	}
	var out Workload
	var cr *cellRules
	seen := map[string]bool{}
	baseTrials := 0
	for k, b := range bs {
		w, r, err := matchWorkload(name, b, c, p)
		if err != nil {
			return w, nil, err
		}
		if w.Status != Compared {
			w.Message = fmt.Sprintf("baseline session %d of %d: %s", k+1, len(bs), w.Message)
			w.BaselineSessions = len(bs)
			return w, nil, nil
		}
		baseTrials += w.BaselineTrials
		if k == 0 {
			out, cr = w, r
			out.Excluded, out.Warnings = nil, nil
		}
		for _, e := range w.Excluded {
			if e.Arm == "baseline" {
				e.Session = k + 1
				out.Excluded = append(out.Excluded, e)
			} else if k == 0 {
				out.Excluded = append(out.Excluded, e)
			}
		}
		for _, msg := range w.Warnings {
			if !seen[msg] {
				seen[msg] = true
				out.Warnings = append(out.Warnings, msg)
			}
		}
		// The newest session (the last: sessions are sorted by start)
		// gives the provenance, age and fingerprint differences.
		out.Provenance, out.BaselineAgeDays, out.Fingerprint = w.Provenance, w.BaselineAgeDays, w.Fingerprint
	}
	out.BaselineTrials = baseTrials
	out.BaselineSessions = len(bs)
	return out, cr, nil
}
