package verdict

import (
	"fmt"
	"sort"
	"strings"

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
	for _, name := range unionKeys(base, cand) {
		w, cr, err := matchSessions(name, base[name], cand[name], &p)
		if err != nil {
			return nil, err
		}
		if w.Status == Compared {
			pending = append(pending, buildCells(&w, base[name], cand[name], cr)...)
		}
		c.Workloads = append(c.Workloads, w)
	}
	c.Noise = moderate(pending, &p)
	defaulted, assumed := poolBetween(pending, c.Noise, &p)
	c.Warnings = append(c.Warnings, betweenWarnings(defaulted, assumed, &p)...)
	decide(c, pending, &p)
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

func unionKeys(a map[string][]*result.Result, b map[string]*result.Result) []string {
	seen := map[string]bool{}
	var keys []string
	for k := range a {
		seen[k] = true
		keys = append(keys, k)
	}
	for k := range b {
		if !seen[k] {
			seen[k] = true
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
		w.Status = WorkloadChanged
		w.Message = fmt.Sprintf("workload changed since the baseline; re-baseline (hash %s -> %s)", short(b.Workload.Hash), short(c.Workload.Hash))
		return w, nil, nil
	}
	for _, arm := range []struct {
		name string
		r    *result.Result
	}{{"baseline", b}, {"candidate", c}} {
		if !arm.r.Complete {
			w.Status = IncompleteRun
			w.Message = fmt.Sprintf("the %s run is incomplete: %s", arm.name, orDefault(arm.r.IncompleteReason, "no reason recorded"))
			return w, nil, nil
		}
	}
	w.Fingerprint = result.DiffFingerprints(b.Fingerprint, c.Fingerprint, p.HardKeys)
	var hard []string
	for _, d := range w.Fingerprint {
		if d.Hard {
			hard = append(hard, fmt.Sprintf("%s %q vs %q", d.Key, d.Baseline, d.Candidate))
		}
	}
	if len(hard) > 0 {
		if !p.AllowMismatch {
			w.Status = FingerprintMismatch
			w.Message = "environment differs from the baseline's: " + strings.Join(hard, ", ") + "; pass --allow-mismatch to compare anyway"
			return w, nil, nil
		}
		w.Warnings = append(w.Warnings, "compared despite differing environment (--allow-mismatch): "+strings.Join(hard, ", "))
	}
	for _, arm := range []struct {
		name string
		r    *result.Result
	}{{"baseline", b}, {"candidate", c}} {
		invalid := 0
		for _, t := range arm.r.Trials {
			if !t.Valid {
				invalid++
				w.Excluded = append(w.Excluded, Excluded{Arm: arm.name, Trial: t.Index, Reason: orDefault(t.InvalidReason, "marked invalid")})
			}
		}
		total := len(arm.r.Trials)
		switch {
		case total == invalid:
			w.Status = NoValidTrials
			w.Message = fmt.Sprintf("the %s has no valid trial (%d recorded)", arm.name, total)
			return w, nil, nil
		case float64(invalid) > p.MaxInvalidShare*float64(total):
			w.Status = NoValidTrials
			w.Message = fmt.Sprintf("%d of the %s's %d trials are invalid (more than %.0f%%); the run is not trustworthy", invalid, arm.name, total, 100*p.MaxInvalidShare)
			return w, nil, nil
		case invalid > 0:
			w.Warnings = append(w.Warnings, fmt.Sprintf("%d invalid %s trial(s) excluded", invalid, arm.name))
		}
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

// buildCells collects, for every directional metric both arms carry, the
// valid trials' values. A gated statistic neither arm carries is replaced
// by a substitute (see substitute) or, when there is none, left out with a
// warning. A gated metric only one arm carries becomes an untestable cell:
// inconclusive, so the workload cannot pass while its arms disagree on
// what they measured. A command cell is gated only on its own gate list
// and on policy rules for metrics its files carry (cellRules.forFiles).
func buildCells(w *Workload, bs []*result.Result, c *result.Result, cr *cellRules) []*pendingCell {
	bIDs, cIDs := carriedByAll(bs), carried(c)
	rules, subs := substitute(cr.forFiles(bIDs, cIDs), cr.optOut, bIDs, cIDs)
	w.Substitutions = subs
	standsFor := map[string]string{}
	for _, s := range subs {
		standsFor[s.Metric] = s.Missing
	}
	ids := map[string]bool{}
	for _, set := range []map[string]bool{bIDs, cIDs} {
		for id := range set {
			ids[id] = true
		}
	}
	var out []*pendingCell
	for _, id := range orderedIDs(ids) {
		m, ok := metrics.Lookup(id)
		if !ok || m.Direction == metrics.Informational {
			continue
		}
		rule, ok := rules[id]
		if !ok {
			rule = Rule{Metric: id, Tolerance: DefaultTolerance(id)}
		}
		var bvs [][]float64
		var bis [][]int
		nb := 0
		for _, b := range bs {
			v, i := samples(b, id)
			bvs, bis = append(bvs, v), append(bis, i)
			nb += len(v)
		}
		if !bIDs[id] {
			bvs, bis, nb = nil, nil, 0
		}
		cv, ci := samples(c, id)
		if (nb == 0 || len(cv) == 0) && !rule.Gated {
			continue
		}
		pc := newPending(w.Cell, m, rule, bvs, bis, cv, ci)
		if nb == 0 || len(cv) == 0 {
			pc.missing = "candidate"
			if nb == 0 {
				pc.missing = "baseline"
			}
		}
		if missing, ok := standsFor[id]; ok {
			pc.cell.Substitutes = missing
			pc.cell.Warnings = append(pc.cell.Warnings, fmt.Sprintf("%s not in the files; %s gated instead", missing, id))
		}
		out = append(out, pc)
	}
	substituted := map[string]bool{}
	for _, s := range subs {
		substituted[s.Missing] = true
	}
	for _, id := range sortedRuleIDs(rules) {
		if !rules[id].Gated || ids[id] || substituted[id] {
			continue
		}
		msg := fmt.Sprintf("gated metric %s is in neither run; not compared", id)
		if _, ok := metrics.ParseID(id); ok {
			msg = fmt.Sprintf("gated metric %s is in neither run and no statistic both runs carry can stand in for it; not compared", id)
		}
		w.Warnings = append(w.Warnings, msg)
	}
	return out
}

// carried is the set of metric ids some valid trial of r carries.
func carried(r *result.Result) map[string]bool {
	ids := map[string]bool{}
	for _, t := range r.ValidTrials() {
		for id := range t.Values {
			ids[id] = true
		}
	}
	return ids
}

// carriedByAll is the set of metric ids every session of a baseline
// carries: a metric some session lacks is missing from the baseline.
func carriedByAll(bs []*result.Result) map[string]bool {
	var ids map[string]bool
	for _, b := range bs {
		c := carried(b)
		if ids == nil {
			ids = c
			continue
		}
		for id := range ids {
			if !c[id] {
				delete(ids, id)
			}
		}
	}
	if ids == nil {
		ids = map[string]bool{}
	}
	return ids
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

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
