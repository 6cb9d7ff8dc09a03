package cli

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trust"
)

// baselineScreen prepares runs for promotion: it reads the configuration,
// the profile's histories and calibration, has trust.Screen decide which
// runs may be promoted (returned as skipped otherwise) and prints its
// notes. It returns the settings to store with the baselines
// (trust.SettingsOf).
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
	refused, notes, err := trust.Screen(runs, trust.ScreenInput{Policy: policy, Cells: byName, Priors: calib,
		AcceptNoisy: o.acceptNoisy, MaxInvalidShare: o.req.MaxInvalidShare})
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	for _, n := range notes {
		fmt.Fprintf(s.Err, "perfgate: warning: %s: %s\n", n.Source, n.Text)
	}
	return refused, settings, nil
}
