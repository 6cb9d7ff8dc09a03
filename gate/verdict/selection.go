package verdict

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// Selection is what one workload cell compares: the metrics, in report
// order, each with the rule in force, the substitutions made for gated
// statistics neither run carries, and the workload's warnings about gated
// metrics that are compared nowhere. It is the one definition of "which
// metrics a cell compares", shared by Compare (a stored baseline) and the
// paired A/B comparison (gate/ab), so that both gate exactly the same
// metrics of the same files.
type Selection struct {
	Metrics       []Selected
	Substitutions []Substitution
	// Warnings belong to the workload: one per gated metric that is in
	// neither run and has no substitute.
	Warnings []string
}

// Selected is one metric a workload cell compares.
type Selected struct {
	Metric metrics.Metric
	Rule   Rule
	// Substitutes is the gated statistic, absent from both runs, that
	// Metric is gated in place of; "" when it stands for itself.
	Substitutes string
}

// Mark records on c that it is a substitute, with the warning that says
// so; it does nothing to a cell that stands for itself.
func (s Selected) Mark(c *Cell) {
	if s.Substitutes == "" {
		return
	}
	c.Substitutes = s.Substitutes
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s not in the files; %s gated instead", s.Substitutes, s.Metric.ID))
}

// Select is the selection of a workload cell with result spec spec whose
// baseline and candidate carry the metric ids base and cand (see
// Carried), under p's rules and the spec's gate list. It does not apply
// Policy.Trusted: trusted rules are those stored with a baseline, which a
// paired experiment has none of. The error is for a spec whose gate list
// cannot be read.
func (p *Policy) Select(spec json.RawMessage, base, cand map[string]bool) (Selection, error) {
	cr, err := p.resolve(spec)
	if err != nil {
		return Selection{}, err
	}
	return cr.selection(base, cand), nil
}

// selection is Select for rules already resolved (and tightened). Every
// directional metric both runs carry is compared; a gated statistic
// neither carries is replaced by a substitute (see substitute) or, when
// there is none, left out with a warning; a gated metric only one run
// carries is selected all the same, for the caller to report as
// untestable. A command cell is gated only on its own gate list and on
// policy rules for metrics its files carry (cellRules.forFiles).
func (cr *cellRules) selection(base, cand map[string]bool) Selection {
	rules, subs := substitute(cr.forFiles(base, cand), cr.optOut, base, cand)
	sel := Selection{Substitutions: subs}
	standsFor := map[string]string{}
	for _, s := range subs {
		standsFor[s.Metric] = s.Missing
	}
	ids := map[string]bool{}
	for _, set := range []map[string]bool{base, cand} {
		for id := range set {
			ids[id] = true
		}
	}
	for _, id := range orderedIDs(ids) {
		m, ok := metrics.Lookup(id)
		if !ok || m.Direction == metrics.Informational {
			continue
		}
		rule, ok := rules[id]
		if !ok {
			rule = Rule{Metric: id, Tolerance: DefaultTolerance(id)}
		}
		if (!base[id] || !cand[id]) && !rule.Gated {
			continue
		}
		sel.Metrics = append(sel.Metrics, Selected{Metric: m, Rule: rule, Substitutes: standsFor[id]})
	}
	substituted := map[string]bool{}
	for _, s := range subs {
		substituted[s.Missing] = true
	}
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		if !rules[id].Gated || ids[id] || substituted[id] {
			continue
		}
		msg := fmt.Sprintf("gated metric %s is in neither run; not compared", id)
		if _, ok := metrics.ParseID(id); ok {
			msg = fmt.Sprintf("gated metric %s is in neither run and no statistic both runs carry can stand in for it; not compared", id)
		}
		sel.Warnings = append(sel.Warnings, msg)
	}
	return sel
}

// Carried is the set of metric ids some valid trial of r carries.
func Carried(r *result.Result) map[string]bool {
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
		c := Carried(b)
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
