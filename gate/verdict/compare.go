package verdict

import (
	"fmt"
	"sort"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// Compare compares candidate results with baseline results, matched by
// workload cell, under policy p at look. Data problems (a missing baseline,
// a changed workload, invalid trials) are reported in the Comparison, never
// as an error; the error is for an invalid policy or look and for inputs no
// comparison can be built from (two results of one cell in one arm, a
// workload spec whose gate list cannot be read).
//
// The baseline may hold several results of one cell, each one server
// session (a history segment): the baseline level is then the mean of the
// session means, its session term shrinks with their number, and their
// spread estimates the between-session noise (docs/statistics.md). The
// candidate is one session: two candidate results of one cell are an
// error (merge shards first).
//
// A zero look means Look{Index: 1, Max: 1}.
func Compare(baseline, candidate []*result.Result, p Policy, look Look) (*Comparison, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if look == (Look{}) {
		look = Look{Index: 1, Max: 1}
	}
	if look.Max < 1 || look.Index < 1 || look.Index > look.Max {
		return nil, fmt.Errorf("look %d of %d: want 1 <= index <= max", look.Index, look.Max)
	}
	// A trial with a latency of zero is broken data (zero.go).
	baseline, candidate = dropImpossible(baseline), dropImpossible(candidate)
	base, err := sessionsByCell(baseline)
	if err != nil {
		return nil, err
	}
	cand, err := byCell("candidate", candidate)
	if err != nil {
		return nil, err
	}
	c := &Comparison{
		Schema:    SchemaID,
		Alpha:     p.Alpha,
		LookAlpha: p.Alpha / float64(look.Max),
		Look:      look,
		Policy:    p,
	}
	var pending []*pendingCell
	for _, name := range CellNames(base, cand) {
		w, cr, err := matchSessions(name, base[name], cand[name], &p)
		if err != nil {
			return nil, err
		}
		if w.Status == Compared {
			if msg := NewFailures(base[name], cand[name]); msg != "" {
				w.Warnings = append(w.Warnings, msg)
			}
			pending = append(pending, buildCells(&w, base[name], cand[name], cr)...)
		}
		c.Workloads = append(c.Workloads, w)
	}
	c.Noise = moderate(pending, &p)
	defaulted, assumed := poolBetween(pending, c.Noise, &p)
	c.Warnings = append(c.Warnings, betweenWarnings(defaulted, assumed, &p)...)
	decide(c, pending, &p)
	holdBusyRunner(c, pending, cand) // health.go
	summarise(c, pending)
	return c, nil
}

// byCell indexes one arm's results by workload cell.
func byCell(arm string, rs []*result.Result) (map[string]*result.Result, error) {
	m := make(map[string]*result.Result, len(rs))
	for i, r := range rs {
		if r == nil {
			return nil, fmt.Errorf("%s[%d]: nil result", arm, i)
		}
		if _, dup := m[r.Workload.Cell]; dup {
			return nil, fmt.Errorf("%s: two results for workload cell %q (merge shards first)", arm, r.Workload.Cell)
		}
		m[r.Workload.Cell] = r
	}
	return m, nil
}

// CellNames are the cells of either arm, sorted: the cells a comparison
// walks, one row each whether one arm or both have it (verdict's matching
// rules then say what a one-sided cell is). ab walks its arms' cells the
// same way.
func CellNames[A, B any](a map[string]A, b map[string]B) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// matchWorkload applies the matching rules of docs/baselines.md to one
// workload cell and returns its status and, when compared, its rules.
func matchWorkload(name string, b, c *result.Result, p *Policy) (Workload, *cellRules, error) {
	w := Workload{Cell: name}
	if b != nil {
		w.BaselineHash = b.Workload.Hash
		w.Provenance = b.Provenance
	}
	if c != nil {
		w.CandidateHash = c.Workload.Hash
	}
	switch {
	case b == nil:
		w.Status, w.Allowed = MissingBaseline, p.AllowMissing
		w.Message = "no baseline for this workload cell; run `perfgate baseline update` or pass --allow-missing"
		w.CandidateTrials = len(c.ValidTrials())
		return w, nil, nil
	case c == nil:
		w.Status, w.Allowed = MissingCandidate, p.AllowMissing
		w.Message = "the candidate did not run this workload cell"
		w.BaselineTrials = len(b.ValidTrials())
		return w, nil, nil
	}
	w.BaselineTrials, w.CandidateTrials = len(b.ValidTrials()), len(c.ValidTrials())
	if b.Workload.Hash != c.Workload.Hash {
		// An imported cell matches by load shape; otherwise the message
		// names what differs (result.SameWorkload).
		same, why, note := result.SameWorkload(b.Workload, c.Workload)
		if !same {
			w.Status = WorkloadChanged
			if why == "" {
				why = fmt.Sprintf("hash %s -> %s", ShortHash(b.Workload.Hash), ShortHash(c.Workload.Hash))
			}
			w.Message = fmt.Sprintf("workload changed since the baseline; re-baseline (%s)", why)
			return w, nil, nil
		}
		w.Warnings = append(w.Warnings, note)
	}
	for _, arm := range []struct {
		name string
		r    *result.Result
	}{{"baseline", b}, {"candidate", c}} {
		if !arm.r.Complete {
			w.Status = IncompleteRun
			w.Message = fmt.Sprintf("the %s run is incomplete: %s", arm.name, IncompleteReason(arm.r))
			return w, nil, nil
		}
	}
	w.Fingerprint = result.DiffFingerprints(b.Fingerprint, c.Fingerprint, p.HardKeys)
	if !p.CheckFingerprint(&w, "environment differs from the baseline's") {
		return w, nil, nil
	}
	invalid := false
	for _, arm := range []struct {
		name string
		r    *result.Result
	}{{"baseline", b}, {"candidate", c}} {
		// Both arms are screened even when the first fails, so the report
		// can list every invalid trial of both sides (issue 23).
		if !p.ExcludeInvalid(&w, arm.r, arm.name, "the "+arm.name) {
			invalid = true
		}
	}
	if invalid {
		return w, nil, nil
	}
	if age := baselineAge(b, c); age > 0 {
		w.BaselineAgeDays = age
		if p.MaxBaselineAgeDays > 0 && age > p.MaxBaselineAgeDays {
			w.Warnings = append(w.Warnings, fmt.Sprintf("baseline is %.0f days older than the candidate (over %.0f): drift between the runs is not accounted for", age, p.MaxBaselineAgeDays))
		}
	}
	if msg := result.CalibrationDrift(b.Workload.Calibration, c.Workload.Calibration); msg != "" {
		w.Warnings = append(w.Warnings, msg)
	}
	cr, err := p.resolve(c.Workload.Spec)
	if err != nil {
		return w, nil, fmt.Errorf("candidate workload cell %q: %w", name, err)
	}
	w.Warnings = append(w.Warnings, cr.tighten(p.Trusted[name])...)
	w.Status = Compared
	return w, cr, nil
}

// baselineAge is how many days before the candidate the baseline was
// measured (its start time; its promotion time when the start is unset).
func baselineAge(b, c *result.Result) float64 {
	when := b.StartedAt
	if when.IsZero() && b.Provenance != nil {
		when = b.Provenance.PromotedAt
	}
	if when.IsZero() || c.StartedAt.IsZero() {
		return 0
	}
	return float64(c.StartedAt.Sub(when)) / float64(day)
}

// buildCells builds the pending cells of one compared workload: the
// cell's selection (see cellRules.selection) with, for every selected
// metric, the valid trials' values. A gated metric only one arm carries
// becomes an untestable cell: inconclusive, so the workload cannot pass
// while its arms disagree on what they measured.
func buildCells(w *Workload, bs []*result.Result, c *result.Result, cr *cellRules) []*pendingCell {
	bIDs, cIDs := carriedByAll(bs), Carried(c)
	sel := cr.selection(bIDs, cIDs)
	w.Substitutions = sel.Substitutions
	var out []*pendingCell
	for _, s := range sel.Metrics {
		id := s.Metric.ID
		var bvs [][]float64
		var bis [][]int
		nb := 0
		for _, b := range bs {
			// A baseline recorded over several server starts is that
			// many sessions (starts.go).
			vs, is := samplesByStart(b, id)
			for k := range vs {
				bvs, bis = append(bvs, vs[k]), append(bis, is[k])
				nb += len(vs[k])
			}
		}
		if !bIDs[id] {
			bvs, bis, nb = nil, nil, 0
		}
		cv, ci := samples(c, id)
		pc := newPending(w.Cell, s.Metric, s.Rule, bvs, bis, cv, ci)
		if st := trialStarts(c); st != nil {
			pc.cstart = st
			pc.sumSquares()
			if k, _ := pc.candShape(); k > 1 {
				pc.cell.Candidate.Sessions = int(k)
			}
		}
		if nb == 0 || len(cv) == 0 {
			pc.missing = "candidate"
			if nb == 0 {
				pc.missing = "baseline"
			}
		}
		s.Mark(&pc.cell)
		out = append(out, pc)
	}
	w.Warnings = append(w.Warnings, sel.Warnings...)
	return out
}

// samples returns metric id's values over r's valid trials that carry it,
// with the trials' indices.
func samples(r *result.Result, id string) ([]float64, []int) {
	var v []float64
	var idx []int
	for _, t := range r.Trials {
		if x, ok := t.Values[id]; ok && t.Valid {
			v, idx = append(v, x), append(idx, t.Index)
		}
	}
	return v, idx
}

// orderedIDs sorts metric ids in the catalogue's report order, unknown ids
// last by name.
func orderedIDs(set map[string]bool) []string {
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		ri, rj := reportRank(ids[i]), reportRank(ids[j])
		if ri != rj {
			return ri < rj
		}
		return ids[i] < ids[j]
	})
	return ids
}

var rank = func() map[string]int {
	m := map[string]int{}
	for i, id := range metrics.All() {
		m[id] = i
	}
	return m
}()

func reportRank(id string) int {
	if r, ok := rank[id]; ok {
		return r
	}
	return len(rank)
}
