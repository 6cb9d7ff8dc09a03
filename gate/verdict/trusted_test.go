package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// A pull request that raises its tolerance to 50 % (in perfgate.yaml or
// in the workload's gate list) still fails on a 10 % regression when the
// baseline was promoted under 3 %, and the report says the looser rule was
// ignored.
func TestTrustedRulesAreNeverLoosened(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	base := simArm(rng, "chat", 10, 0.01, nil)
	cand := simArm(rng, "chat", 10, 0.01, map[string]float64{"tpot_ms.p50": 1.10})
	trusted := map[string][]Rule{"chat": {{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "ttft_ms.p50", Gated: true, Tolerance: 0.03}}}
	loose := func() Policy {
		p := DefaultPolicy()
		for i := range p.Rules {
			if p.Rules[i].Metric == "tpot_ms.p50" {
				p.Rules[i].Tolerance = 0.50
			}
		}
		return p
	}
	for _, tc := range []struct {
		name string
		p    Policy
		cand func() *result.Result
		want string
	}{
		{"perfgate.yaml raises the tolerance", loose(), func() *result.Result { return cand }, "raises the tolerance of tpot_ms.p50 to 50.0 %; the baseline's 3.0 % applies"},
		{"the workload's gate list raises it", DefaultPolicy(), func() *result.Result {
			c := *cand
			return withSpec(&c, map[string]any{"gate": []map[string]any{{"metric": "tpot_ms.p50", "tolerance": 0.5}}})
		}, "raises the tolerance of tpot_ms.p50 to 50.0 %"},
		{"the gate list ungates it", DefaultPolicy(), func() *result.Result {
			c := *cand
			return withSpec(&c, map[string]any{"gate": []map[string]any{{"metric": "tpot_ms.p50", "gated": false}}})
		}, "stops gating tpot_ms.p50"},
	} {
		// Without the trusted rules the loosened gate lets the regression
		// through, even with the between-session noise known.
		loose := tc.p
		loose.Noise = calibrated("chat")
		c, err := Compare([]*result.Result{base}, []*result.Result{tc.cand()}, loose, Look{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == Regression {
			t.Fatalf("%s: regression even without trusted rules; the test proves nothing", tc.name)
		}
		p := tc.p
		p.Trusted = trusted
		p.Noise = calibrated("chat")
		c, err = Compare([]*result.Result{base}, []*result.Result{tc.cand()}, p, Look{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != Regression || c.Headline == nil || c.Headline.Metric != "tpot_ms.p50" || c.Headline.Tolerance != 3 {
			t.Errorf("%s: verdict %s, headline %+v; want a TPOT regression at 3 %%", tc.name, c.Verdict, c.Headline)
		}
		if w := strings.Join(c.Workloads[0].Warnings, "\n"); !strings.Contains(w, tc.want) || !strings.Contains(w, "ignored a looser rule") {
			t.Errorf("%s: warnings %q, want %q", tc.name, w, tc.want)
		}
	}
}

// A stricter checked-out rule wins, and an equal one says nothing.
func TestTrustedRulesKeepStricterCheckedOutRules(t *testing.T) {
	cr := &cellRules{rules: map[string]Rule{
		"tpot_ms.p50": {Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.02},
		"ttft_ms.p50": {Metric: "ttft_ms.p50", Gated: true, Tolerance: 0.03},
	}, optOut: map[string]bool{}}
	msgs := cr.tighten([]Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.05}, {Metric: "ttft_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "e2el_ms.p50", Gated: false}})
	if len(msgs) != 0 || cr.rules["tpot_ms.p50"].Tolerance != 0.02 {
		t.Errorf("messages %q, tpot rule %+v", msgs, cr.rules["tpot_ms.p50"])
	}
	if _, ok := cr.rules["e2el_ms.p50"]; ok {
		t.Error("an ungated trusted rule added a rule")
	}
}

// calibrated is a calibration of cell that measured 0.5 % between-session
// noise on 40 degrees of freedom for every default gated metric, so a
// one-session baseline can show a 10 % change beyond a 3 % tolerance.
func calibrated(cell string) Priors {
	m := map[string]Prior{}
	for _, id := range DefaultGated {
		m[id] = Prior{BetweenVar: 0.005 * 0.005, BetweenDF: 40, Source: "calibration"}
	}
	return Priors{cell: m}
}
