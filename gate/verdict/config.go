package verdict

import (
	"fmt"
	"maps"
	"slices"

	"github.com/perfgate/perfgate/gate/metrics"
)

// PolicyConfig is what a configuration (perfgate.yaml, PERFGATE_POLICY_*
// variables, flags) says about the verdict, as plain values: the verdict
// cannot import the config package, and every command that judges
// (compare, gate, gate --from) must turn the same file into the same
// policy, so the meaning of each key lives here, in FromConfig, once.
type PolicyConfig struct {
	// Alpha is the family-wise false-regression rate; 0 keeps the default.
	Alpha float64
	// Gated, when not empty, is the complete set of gated metrics: it
	// replaces the default set, so a metric left out is not gated.
	Gated []string
	// Tolerances set the practical margin of metrics (fractions, 0.03 =
	// 3 %; absolute metrics in ratio units). A tolerance never gates a
	// metric by itself: one for a metric outside the gated set is the
	// margin its ungated cell is shown against. Which metrics are gated is
	// said by Gated alone, so narrowing the gated set (for example
	// PERFGATE_POLICY_GATED for one run) is not undone by the tolerances
	// a shared perfgate.yaml lists.
	Tolerances map[string]float64
	// AssumedBetween is Policy.AssumedBetween (policy.assumed_between):
	// the between-session CV per metric id, or "*", assumed when nothing
	// is calibrated; nil keeps the documented defaults.
	AssumedBetween map[string]float64
}

// FromConfig returns DefaultPolicy with c applied, validated. Errors name
// the configuration key ("policy.gated", "policy.tolerances.<metric>"), so
// the caller only has to say where the key was set.
func FromConfig(c PolicyConfig) (Policy, error) {
	p := DefaultPolicy()
	if c.Alpha != 0 {
		p.Alpha = c.Alpha
	}
	byID := map[string]Rule{}
	for _, r := range p.Rules {
		byID[r.Metric] = r
	}
	if len(c.Gated) > 0 {
		next := map[string]Rule{}
		for _, id := range c.Gated {
			m, ok := metrics.Lookup(id)
			if !ok {
				return p, fmt.Errorf("policy.gated: unknown metric %q", id)
			}
			if m.Direction == metrics.Informational {
				return p, fmt.Errorf("policy.gated: %s is informational and cannot be gated", id)
			}
			r, ok := byID[id]
			if !ok {
				r = Rule{Metric: id, Tolerance: DefaultTolerance(id)}
			}
			r.Gated = true
			next[id] = r
		}
		byID = next
	}
	tolIDs := slices.Sorted(maps.Keys(c.Tolerances))
	for _, id := range tolIDs {
		tol := c.Tolerances[id]
		if _, ok := metrics.Lookup(id); !ok {
			return p, fmt.Errorf("policy.tolerances: unknown metric %q", id)
		}
		if !(tol > 0) {
			return p, fmt.Errorf("policy.tolerances.%s: %v must be positive (0.03 = 3 %%)", id, tol)
		}
		r := byID[id] // an ungated metric keeps Gated false
		r.Metric, r.Tolerance = id, tol
		byID[id] = r
	}
	if len(c.AssumedBetween) > 0 {
		p.AssumedBetween = make(map[string]float64, len(c.AssumedBetween))
		for id, v := range c.AssumedBetween {
			p.AssumedBetween[id] = v
		}
	}
	p.Rules = p.Rules[:0:0]
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		p.Rules = append(p.Rules, byID[id])
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("policy: %w", err)
	}
	return p, nil
}
