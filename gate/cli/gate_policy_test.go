package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestGatePolicy checks what the judging commands make of the
// configuration's policy keys (verdict.FromConfig owns the meaning).
func TestGatePolicy(t *testing.T) {
	t.Parallel()
	load := func(t *testing.T, yaml string) *config.Loaded {
		t.Helper()
		p := filepath.Join(t.TempDir(), "perfgate.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := config.Load(config.Options{File: p})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	rule := func(p verdict.Policy, id string) (verdict.Rule, bool) {
		for _, r := range p.Rules {
			if r.Metric == id {
				return r, true
			}
		}
		return verdict.Rule{}, false
	}

	// Nothing set: the verdict's own defaults, not the config's default alpha.
	p, err := gatePolicy(load(t, "profile: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if def := verdict.DefaultPolicy(); p.Alpha != def.Alpha || len(p.Rules) != len(def.Rules) {
		t.Errorf("unset policy: alpha %v and %d rules, want the verdict defaults %v and %d", p.Alpha, len(p.Rules), def.Alpha, len(def.Rules))
	}

	if p.AssumedBetween != nil {
		t.Errorf("unset policy: assumed_between %v, want the documented defaults", p.AssumedBetween)
	}
	p, err = gatePolicy(load(t, "policy:\n  assumed_between: {\"*\": 0, ttft_ms.p99: 0.05}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.AssumedBetween["*"] != 0 || p.AssumedBetween["ttft_ms.p99"] != 0.05 || len(p.AssumedBetween) != 2 {
		t.Errorf("assumed_between %v", p.AssumedBetween)
	}

	// Set explicitly: alpha, the gated list, and a tolerance.
	p, err = gatePolicy(load(t, "policy:\n  alpha: 0.02\n  gated: [tpot_ms.p50, success_rate]\n  tolerances: {tpot_ms.p50: 0.05, ttft_ms.p99: 0.1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Alpha != 0.02 {
		t.Errorf("alpha %v, want 0.02", p.Alpha)
	}
	if r, ok := rule(p, "tpot_ms.p50"); !ok || !r.Gated || r.Tolerance != 0.05 {
		t.Errorf("tpot_ms.p50 rule %+v, want gated with tolerance 0.05", r)
	}
	if r, ok := rule(p, "success_rate"); !ok || r.Tolerance != verdict.DefaultTolerance("success_rate") {
		t.Errorf("success_rate rule %+v", r)
	}
	if r, ok := rule(p, "ttft_ms.p99"); !ok || r.Gated || r.Tolerance != 0.1 {
		t.Errorf("a tolerance for a metric outside policy.gated sets its margin and leaves it ungated (docs/statistics.md): got %+v", r)
	}
	if _, ok := rule(p, "e2el_ms.p50"); ok {
		t.Error("e2el_ms.p50 is gated although the gated list leaves it out")
	}

	// An invalid value names where it was set: the configuration refuses
	// it with its line (metrics.ParseTolerance), before any policy exists.
	zero := filepath.Join(t.TempDir(), "perfgate.yaml")
	if err := os.WriteFile(zero, []byte("policy:\n  tolerances: {tpot_ms.p50: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = config.Load(config.Options{File: zero})
	if err == nil || !strings.Contains(err.Error(), "perfgate.yaml:2") || !strings.Contains(err.Error(), "policy.tolerances.tpot_ms.p50") {
		t.Errorf("zero tolerance: %v, want it refused at perfgate.yaml:2", err)
	}
}
