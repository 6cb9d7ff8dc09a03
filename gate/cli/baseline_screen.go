package cli

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trust"
	"github.com/perfgate/perfgate/gate/verdict"
)

// baselineScreen prepares runs for promotion: it attaches the gate rules
// in force for each cell (perfgate.yaml's policy with the workload's gate
// list), refuses runs whose gated metrics are far noisier than the
// profile's calibration or the cell's history (or, with --accept-noisy,
// records the warning with them), and
// warns about cells with fewer trials than a baseline should have.
// It returns the settings to store with the baselines (trust.SettingsOf).
func baselineScreen(s *Streams, store baseline.Store, o baselineUpdateOptions, runs []baseline.Run) (*result.Settings, error) {
	l, err := config.Load(config.Options{File: o.configFile, Environ: s.environ()})
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	policy, err := gatePolicy(l)
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	settings := trust.SettingsOf(policy, history.Reference{Days: l.Config.History.ReferenceDays, Runs: l.Config.History.ReferenceRuns})
	cells, _, err := loadHistory(store, o.profile)
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	byName := map[string]*history.Cell{}
	for _, c := range cells {
		byName[c.Name] = c
	}
	current := map[string]string{}
	for _, run := range runs {
		current[run.Result.Workload.Cell] = run.Result.Workload.Hash
	}
	calib, _, _, err := store.CalibrationPriors(o.profile, current)
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	var refused []error
	for i := range runs {
		r := runs[i].Result
		rules, err := policy.Resolve(r.Workload.Spec)
		if err != nil {
			return nil, exitf(ExitInvalid, "%s: %w", runs[i].Source, err)
		}
		runs[i].Rules = storedRules(rules)
		var gated []string
		for id, rule := range rules {
			if rule.Gated {
				gated = append(gated, id)
			}
		}
		for _, n := range history.CheckNoise(r, byName[r.Workload.Cell], calib[r.Workload.Cell], metricOrder(setOf(gated)), policy) {
			if !o.acceptNoisy {
				refused = append(refused, fmt.Errorf("%s: %s", runs[i].Source, n))
				continue
			}
			runs[i].Warnings = append(runs[i].Warnings, n.String()+"; kept with --accept-noisy")
			fmt.Fprintf(s.Err, "perfgate: warning: %s: %s; kept with --accept-noisy\n", runs[i].Source, n)
		}
		if v := len(r.ValidTrials()); v < history.MinBaselineTrials {
			fmt.Fprintf(s.Err, "perfgate: warning: %s: workload %q has %d valid trials; a baseline should have at least %d, since every later comparison's precision is bounded by it\n",
				runs[i].Source, r.Workload.Cell, v, history.MinBaselineTrials)
		}
	}
	if len(refused) > 0 {
		return nil, exitf(ExitInvalid, "baseline update: %w\nrerun the measurement on a quiet machine, or pass --accept-noisy to keep it with a recorded warning", errors.Join(refused...))
	}
	return settings, nil
}

// storedRules converts the verdict's rules to the form stored with a
// baseline.
func storedRules(rules map[string]verdict.Rule) []result.Rule {
	out := make([]result.Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, result.Rule{Metric: r.Metric, Gated: r.Gated, Tolerance: r.Tolerance})
	}
	return baseline.SortRules(out)
}

func setOf(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
