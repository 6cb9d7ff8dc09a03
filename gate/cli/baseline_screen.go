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
// list), returns as skipped the runs whose gated metrics are far noisier
// than the profile's calibration or the cell's history (or, with
// --accept-noisy, records the warning with them), and
// warns about cells with fewer trials than a baseline should have.
// It returns the settings to store with the baselines (trust.SettingsOf).
// An error is a problem of the configuration or the store, which stops
// the whole update.
func baselineScreen(s *Streams, store baseline.Store, o baselineUpdateOptions, runs []baseline.Run) ([]baseline.Skip, *result.Settings, error) {
	l, err := config.Load(config.Options{File: o.configFile, Environ: s.environ()})
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	policy, err := gatePolicy(l)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	settings := trust.SettingsOf(policy, history.Reference{Days: l.Config.History.ReferenceDays, Runs: l.Config.History.ReferenceRuns})
	cells, _, err := loadHistory(store, o.profile)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
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
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	var refused []baseline.Skip
	for i := range runs {
		r := runs[i].Result
		rules, err := policy.Resolve(r.Workload.Spec)
		if err != nil {
			return nil, nil, exitf(ExitInvalid, "%s: %w", runs[i].Source, err)
		}
		runs[i].Rules = storedRules(rules)
		var gated []string
		for id, rule := range rules {
			if rule.Gated {
				gated = append(gated, id)
			}
		}
		var noisy []error
		for _, n := range history.CheckNoise(r, byName[r.Workload.Cell], calib[r.Workload.Cell], metricOrder(setOf(gated)), policy) {
			if !o.acceptNoisy {
				noisy = append(noisy, errors.New(n.String()))
				continue
			}
			runs[i].Warnings = append(runs[i].Warnings, n.String()+"; kept with --accept-noisy")
			fmt.Fprintf(s.Err, "perfgate: warning: %s: %s; kept with --accept-noisy\n", runs[i].Source, n)
		}
		if n, why := baseline.Busy(r); n > 0 && float64(n+len(r.Trials)-len(r.ValidTrials())) > o.req.MaxInvalidShare*float64(len(r.Trials)) {
			msg := fmt.Sprintf("workload %q: %d of %d trials ran on a busy runner (%s), more than %.0f%% with the invalid ones", r.Workload.Cell, n, len(r.Trials), why, 100*o.req.MaxInvalidShare)
			if !o.acceptNoisy {
				noisy = append(noisy, errors.New(msg))
			} else {
				runs[i].Warnings = append(runs[i].Warnings, msg+"; kept with --accept-noisy")
				fmt.Fprintf(s.Err, "perfgate: warning: %s: %s; kept with --accept-noisy\n", runs[i].Source, msg)
			}
		}
		if len(noisy) > 0 {
			refused = append(refused, baseline.Skip{Source: runs[i].Source, Cell: r.Workload.Cell,
				Reason: fmt.Errorf("%w; rerun it on a quiet runner, or pass --accept-noisy to keep it with a recorded warning", errors.Join(noisy...))})
			continue
		}
		if v := len(r.ValidTrials()); v < history.MinBaselineTrials {
			fmt.Fprintf(s.Err, "perfgate: warning: %s: workload %q has %d valid trials; a baseline should have at least %d, since every later comparison's precision is bounded by it\n",
				runs[i].Source, r.Workload.Cell, v, history.MinBaselineTrials)
		}
	}
	return refused, settings, nil
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
