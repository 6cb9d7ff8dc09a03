package trust

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// ScreenInput is what decides which runs may become baselines.
type ScreenInput struct {
	// Policy is perfgate.yaml's policy; each run's workload adds its
	// gate list (Policy.Resolve).
	Policy verdict.Policy
	// Cells are the profile's histories by cell name; Priors the
	// profile's calibration by cell (baseline.Store.CalibrationPriors).
	Cells  map[string]*history.Cell
	Priors verdict.Priors
	// AcceptNoisy keeps a noisy or busy run with a recorded warning
	// instead of refusing it (--accept-noisy).
	AcceptNoisy bool
	// MaxInvalidShare is the share of trials an arm may lose: a run
	// whose busy-runner trials and invalid ones exceed it is refused.
	MaxInvalidShare float64
}

// Note is a warning about one run for the operator: Source is the run's
// file.
type Note struct {
	Source string
	Text   string
}

// Screen decides which of runs may be promoted: it gives each run the
// gate rules in force for its cell (stored with the baseline, so a later
// gate applies them), refuses the runs whose gated metrics are far
// noisier than the profile's calibration or the cell's history, or that
// ran on a busy runner for more trials than an arm may lose (with
// AcceptNoisy those are kept, the finding recorded in the run's
// Warnings), and notes the cells with fewer valid trials than a baseline
// should have. runs are changed in place (Rules, Warnings). An error is a
// rule that does not resolve for a run's workload.
func Screen(runs []baseline.Run, in ScreenInput) (refused []baseline.Skip, notes []Note, err error) {
	for i := range runs {
		run := &runs[i]
		r := run.Result
		rules, err := in.Policy.Resolve(r.Workload.Spec)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", run.Source, err)
		}
		run.Rules = storedRules(rules)
		gated := map[string]bool{}
		for id, rule := range rules {
			if rule.Gated {
				gated[id] = true
			}
		}
		var findings []string
		for _, n := range history.CheckNoise(r, in.Cells[r.Workload.Cell], in.Priors[r.Workload.Cell], metrics.Order(gated), in.Policy) {
			findings = append(findings, n.String())
		}
		if n, why := baseline.Busy(r); n > 0 && float64(n+len(r.Trials)-len(r.ValidTrials())) > in.MaxInvalidShare*float64(len(r.Trials)) {
			findings = append(findings, fmt.Sprintf("workload %q: %d of %d trials ran on a busy runner (%s), more than %.0f%% with the invalid ones", r.Workload.Cell, n, len(r.Trials), why, 100*in.MaxInvalidShare))
		}
		if len(findings) > 0 && !in.AcceptNoisy {
			var errs []error
			for _, f := range findings {
				errs = append(errs, errors.New(f))
			}
			refused = append(refused, baseline.Skip{Source: run.Source, Cell: r.Workload.Cell,
				Reason: fmt.Errorf("%w; rerun it on a quiet runner, or pass --accept-noisy to keep it with a recorded warning", errors.Join(errs...))})
			continue
		}
		for _, f := range findings {
			run.Warnings = append(run.Warnings, f+"; kept with --accept-noisy")
			notes = append(notes, Note{Source: run.Source, Text: f + "; kept with --accept-noisy"})
		}
		if v := len(r.ValidTrials()); v < history.MinBaselineTrials {
			notes = append(notes, Note{Source: run.Source, Text: fmt.Sprintf("workload %q has %d valid trials; a baseline should have at least %d, since every later comparison's precision is bounded by it",
				r.Workload.Cell, v, history.MinBaselineTrials)})
		}
	}
	return refused, notes, nil
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
