package verdict

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestFromConfig pins the one meaning of the configuration's policy keys
// that every command shares.
func TestFromConfig(t *testing.T) {
	def := DefaultPolicy()
	cases := []struct {
		name string
		c    PolicyConfig
		// rules are the expected rules, sorted by metric; nil means the
		// default rules.
		rules []Rule
		alpha float64
		err   string // substring; "" means no error
	}{
		{name: "nothing set keeps the defaults", alpha: def.Alpha},
		{name: "alpha", c: PolicyConfig{Alpha: 0.02}, alpha: 0.02},
		{
			// gated replaces the default set: e2el_ms.p50 and the rest
			// are no longer gated; a new metric gets its default tolerance.
			name:  "gated replaces the set",
			c:     PolicyConfig{Gated: []string{"tpot_ms.p50", "itl_ms.p99"}},
			rules: []Rule{{"itl_ms.p99", true, 0.06}, {"tpot_ms.p50", true, 0.03}},
			alpha: def.Alpha,
		},
		{
			// A tolerance for a gated metric sets its margin; one for a
			// metric outside the gated set does not gate it.
			name:  "tolerance without gated stays ungated",
			c:     PolicyConfig{Gated: []string{"tpot_ms.p50"}, Tolerances: map[string]float64{"tpot_ms.p50": 0.05, "ttft_ms.p99": 0.1}},
			rules: []Rule{{"tpot_ms.p50", true, 0.05}, {"ttft_ms.p99", false, 0.1}},
			alpha: def.Alpha,
		},
		{
			// Without a gated list the default set stays; a tolerance for
			// a default metric changes its margin, for another metric it
			// only sets the margin it is shown with.
			name:  "tolerance with the default set",
			c:     PolicyConfig{Tolerances: map[string]float64{"ttft_ms.p99": 0.1, "itl_ms.p50": 0.04}},
			alpha: def.Alpha,
			rules: func() []Rule {
				var rs []Rule
				for _, r := range def.Rules {
					if r.Metric == "ttft_ms.p99" {
						r.Tolerance = 0.1
					}
					rs = append(rs, r)
				}
				rs = append(rs, Rule{"itl_ms.p50", false, 0.04})
				return sortedRules(rs)
			}(),
		},
		{name: "unknown gated metric", c: PolicyConfig{Gated: []string{"nope"}}, err: `policy.gated: unknown metric "nope"`},
		{name: "informational gated", c: PolicyConfig{Gated: []string{"completed"}}, err: "policy.gated: completed is informational"},
		{name: "unknown tolerance metric", c: PolicyConfig{Tolerances: map[string]float64{"nope": 0.1}}, err: `policy.tolerances: unknown metric "nope"`},
		{name: "negative tolerance", c: PolicyConfig{Tolerances: map[string]float64{"tpot_ms.p50": -1}}, err: "policy.tolerances.tpot_ms.p50: -1 must be positive"},
		{name: "zero tolerance", c: PolicyConfig{Tolerances: map[string]float64{"tpot_ms.p50": 0}}, err: "policy.tolerances.tpot_ms.p50: 0 must be positive"},
		{name: "bad alpha", c: PolicyConfig{Alpha: 0.7}, err: "alpha 0.7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := FromConfig(tc.c)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.rules
			if want == nil {
				want = def.Rules
			}
			if !reflect.DeepEqual(sortedRules(p.Rules), sortedRules(want)) {
				t.Errorf("rules\n%+v\nwant\n%+v", p.Rules, want)
			}
			if p.Alpha != tc.alpha {
				t.Errorf("alpha %v, want %v", p.Alpha, tc.alpha)
			}
		})
	}
}

func sortedRules(rs []Rule) []Rule {
	byID := map[string]Rule{}
	for _, r := range rs {
		byID[r.Metric] = r
	}
	out := []Rule{}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		out = append(out, byID[id])
	}
	return out
}
