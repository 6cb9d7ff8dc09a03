package cli

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/verdict"
)

// gatePolicy is the verdict policy of a loaded configuration, for every
// command that judges (gate, gate --from, compare, and those that predict
// or screen for the gate): the settings the user set (file, environment or
// flag) handed to verdict.FromConfig, which owns what they mean. Only
// settings set explicitly are passed, so the verdict's documented defaults
// hold for the rest. An error names where the offending key was set. The
// --allow-missing and --allow-mismatch flags are the caller's to add.
func gatePolicy(l *config.Loaded) (verdict.Policy, error) {
	c := l.Config.Policy
	pc := verdict.PolicyConfig{Gated: c.Gated, Tolerances: c.Tolerances, AssumedBetween: c.AssumedBetween}
	if l.Source("policy.alpha") != "default" {
		pc.Alpha = c.Alpha
	}
	p, err := verdict.FromConfig(pc)
	if err != nil {
		// FromConfig's errors start with the key they are about.
		key := "policy.alpha"
		for _, k := range []string{"policy.gated", "policy.tolerances", "policy.assumed_between"} {
			if strings.HasPrefix(err.Error(), k) {
				key = k
			}
		}
		return p, fmt.Errorf("%s: %w", l.Source(key), err)
	}
	return p, nil
}

// policyRequirements are what `perfgate baseline update` asks of a run: as
// many valid trials as the verdict needs to call a cell confident, and no
// more invalid trials than it accepts in a compared arm, so a promoted
// baseline is never one the verdict would call low-confidence or refuse.
func policyRequirements(p verdict.Policy) baseline.Requirements {
	return baseline.Requirements{MinTrials: p.MinTrials, MaxInvalidShare: p.MaxInvalidShare}
}
