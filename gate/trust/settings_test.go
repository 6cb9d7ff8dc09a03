package trust

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func stored(s *result.Settings) []*result.Result {
	return []*result.Result{{Provenance: &result.Provenance{Settings: s}}}
}

// Every setting that can loosen the verdict takes the stricter of stored
// and checked out, and each ignored one is named (issue #20 item 2).
func TestApplySettings(t *testing.T) {
	def := verdict.DefaultPolicy()
	defaults := SettingsOf(def, history.DefaultReference())
	for _, tc := range []struct {
		name      string
		bs        []*result.Result
		change    func(p *verdict.Policy, ref *history.Reference)
		check     func(p verdict.Policy, ref history.Reference) bool
		wantNotes []string
	}{
		{"nothing stored: the checkout rules", []*result.Result{{}},
			func(p *verdict.Policy, _ *history.Reference) { p.Alpha = 1e-9 },
			func(p verdict.Policy, _ history.Reference) bool { return p.Alpha == 1e-9 }, nil},
		{"alpha lowered", stored(defaults),
			func(p *verdict.Policy, _ *history.Reference) { p.Alpha = 1e-9 },
			func(p verdict.Policy, _ history.Reference) bool { return p.Alpha == 0.01 },
			[]string{"lowers policy.alpha to 1e-09; the baseline's 0.01 applies"}},
		{"alpha raised: stricter, kept", stored(defaults),
			func(p *verdict.Policy, _ *history.Reference) { p.Alpha = 0.05 },
			func(p verdict.Policy, _ history.Reference) bool { return p.Alpha == 0.05 }, nil},
		{"assumed between raised by *", stored(defaults),
			func(p *verdict.Policy, _ *history.Reference) { p.AssumedBetween = map[string]float64{"*": 0.5} },
			func(p verdict.Policy, _ history.Reference) bool {
				return p.AssumedBetween["tpot_ms.p50"] == verdict.DefaultBetweenCV("tpot_ms.p50") && p.AssumedBetween["*"] == 0.5
			},
			[]string{"raises policy.assumed_between for", "tpot_ms.p50 50.0% (the baseline's 8.0%)"}},
		{"assumed between lowered: stricter, kept", stored(defaults),
			func(p *verdict.Policy, _ *history.Reference) { p.AssumedBetween = map[string]float64{"*": 0} },
			func(p verdict.Policy, _ history.Reference) bool { return len(p.AssumedBetween) == 1 }, nil},
		{"drift guard off", stored(defaults),
			func(_ *verdict.Policy, ref *history.Reference) { ref.Days = 0 },
			func(_ verdict.Policy, ref history.Reference) bool { return ref == history.DefaultReference() },
			[]string{"turns the drift guard off"}},
		{"the strictest of several baselines", append(stored(&result.Settings{Alpha: 0.02}), stored(&result.Settings{Alpha: 0.03})...),
			func(*verdict.Policy, *history.Reference) {},
			func(p verdict.Policy, _ history.Reference) bool { return p.Alpha == 0.03 },
			[]string{"the baseline's 0.03 applies"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ref := verdict.DefaultPolicy(), history.DefaultReference()
			tc.change(&p, &ref)
			notes := ApplySettings(&p, tc.bs, &ref)
			if !tc.check(p, ref) {
				t.Errorf("policy alpha %g, assumed %v, reference %+v", p.Alpha, p.AssumedBetween, ref)
			}
			all := strings.Join(notes, "\n")
			if len(tc.wantNotes) == 0 && len(notes) > 0 {
				t.Errorf("unexpected notes %q", notes)
			}
			for _, w := range tc.wantNotes {
				if !strings.Contains(all, w) || !strings.HasPrefix(all, "ignored a looser setting") {
					t.Errorf("notes %q lack %q", notes, w)
				}
			}
		})
	}
}
