package trust

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// SettingsOf is what `baseline update` stores with a baseline besides its
// rules: the settings of p and ref that could loosen a later verdict.
func SettingsOf(p verdict.Policy, ref history.Reference) *result.Settings {
	s := &result.Settings{Alpha: p.Alpha, ReferenceDays: ref.Days, ReferenceRuns: ref.Runs}
	if len(p.AssumedBetween) > 0 {
		s.AssumedBetween = make(map[string]float64, len(p.AssumedBetween))
		for k, v := range p.AssumedBetween {
			s.AssumedBetween[k] = v
		}
	}
	return s
}

// ApplySettings makes the checked-out settings of p and ref at least as
// strict as those stored with every baseline of bs (Provenance.Settings),
// and returns one note per looser setting it ignored. Stricter means: a
// larger alpha (a smaller one needs more evidence to call a regression),
// a smaller assumed between-session noise per gated metric (a larger one
// widens every interval into "inconclusive"), and the drift guard on.
// Baselines without stored settings constrain nothing.
func ApplySettings(p *verdict.Policy, bs []*result.Result, ref *history.Reference) []string {
	var stored []*result.Settings
	for _, b := range bs {
		if b.Provenance != nil && b.Provenance.Settings != nil {
			stored = append(stored, b.Provenance.Settings)
		}
	}
	if len(stored) == 0 {
		return nil
	}
	var notes []string
	alpha := 0.0
	for _, s := range stored {
		alpha = max(alpha, s.Alpha)
	}
	if alpha > p.Alpha {
		notes = append(notes, fmt.Sprintf("ignored a looser setting: this change lowers policy.alpha to %g; the baseline's %g applies until a new baseline is promoted from the default branch", p.Alpha, alpha))
		p.Alpha = alpha
	}
	if n := tightenBetween(p, bs, stored); n != "" {
		notes = append(notes, n)
	}
	if ref != nil && ref.Days <= 0 {
		for _, s := range stored {
			if s.ReferenceDays > 0 && s.ReferenceRuns > 0 {
				notes = append(notes, fmt.Sprintf("ignored a looser setting: this change turns the drift guard off (history.reference_days 0); the baseline's window (%g days, %d runs) applies until a new baseline is promoted from the default branch", s.ReferenceDays, s.ReferenceRuns))
				ref.Days, ref.Runs = s.ReferenceDays, s.ReferenceRuns
				break
			}
		}
	}
	return notes
}

// tightenBetween lowers p's assumed between-session CV of each gated
// metric to the smallest stored one, and says which metrics it lowered.
func tightenBetween(p *verdict.Policy, bs []*result.Result, stored []*result.Settings) string {
	ids := map[string]bool{}
	for _, r := range p.Rules {
		if r.Gated {
			ids[r.Metric] = true
		}
	}
	for _, b := range bs {
		if b.Provenance == nil {
			continue
		}
		for _, r := range b.Provenance.Rules {
			if r.Gated {
				ids[r.Metric] = true
			}
		}
	}
	for id := range p.AssumedBetween {
		if id != "*" {
			ids[id] = true
		}
	}
	var changed []string
	next := map[string]float64{}
	for id := range ids {
		cur := resolveBetween(p.AssumedBetween, id)
		low := cur
		for _, s := range stored {
			low = min(low, resolveBetween(s.AssumedBetween, id))
		}
		if low < cur {
			next[id] = low
			changed = append(changed, fmt.Sprintf("%s %.1f%% (the baseline's %.1f%%)", id, 100*cur, 100*low))
		}
	}
	if len(changed) == 0 {
		return ""
	}
	m := make(map[string]float64, len(p.AssumedBetween)+len(next))
	for k, v := range p.AssumedBetween {
		m[k] = v
	}
	for k, v := range next {
		m[k] = v
	}
	p.AssumedBetween = m
	sort.Strings(changed)
	return "ignored a looser setting: this change raises policy.assumed_between for " + strings.Join(changed, ", ") +
		"; the baseline's values apply until a new baseline is promoted from the default branch"
}

// resolveBetween is the assumed between-session CV of metric id under the
// assumed_between map m, as the verdict resolves it.
func resolveBetween(m map[string]float64, id string) float64 {
	if v, ok := m[id]; ok {
		return v
	}
	if v, ok := m["*"]; ok {
		return v
	}
	return verdict.DefaultBetweenCV(id)
}
