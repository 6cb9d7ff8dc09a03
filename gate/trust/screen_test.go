package trust

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// screenRun is a run of cell whose TPOT p50 in trial i is 12 ms times
// tpot[i], the other metrics steady.
func screenRun(cell string, tpot ...float64) baseline.Run {
	r := &result.Result{Workload: result.Workload{Name: cell, Cell: cell}, Complete: true}
	for i, f := range tpot {
		w := 1 + 0.002*float64(i%3)
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: map[string]float64{
			"tpot_ms.p50": 12 * f, "ttft_ms.p50": 40 * w, "e2el_ms.p50": 1500 * w, "success_rate": 1}})
	}
	return baseline.Run{Source: cell + ".json", Result: r}
}

// TestScreen: the promotion screen, without a calibration or a history
// (the policy's assumed noise is the usual spread). Each case is one run.
func TestScreen(t *testing.T) {
	t.Parallel()
	noisy := []float64{0.6, 1, 1.5, 0.8, 1.9, 0.7, 1.2, 1.6, 0.9, 1.8}
	steady := []float64{1, 1.003, 0.998, 1.001, 0.999, 1.002, 0.997, 1, 1.001, 0.999} // history.MinBaselineTrials
	tests := []struct {
		name        string
		run         baseline.Run
		acceptNoisy bool
		refused     string // in the refusal's reason; "" when kept
		note        string // in the one note; "" when none
		warning     string // in the run's recorded warnings; "" when none
	}{
		{"steady run kept silently", screenRun("steady", steady...), false, "", "", ""},
		{"too few valid trials: kept, noted", screenRun("few", 1, 1.002), false, "", `workload "few" has 2 valid trials; a baseline should have at least`, ""},
		{"noisy run refused, saying how to keep it", screenRun("noisy", noisy...), false, "tpot_ms.p50 spread across trials", "", ""},
		{"noisy run kept with --accept-noisy, the finding recorded", screenRun("noisy", noisy...), true, "", "kept with --accept-noisy", "tpot_ms.p50 spread across trials"},
	}
	for _, tc := range tests {
		runs := []baseline.Run{tc.run}
		refused, notes, err := Screen(runs, ScreenInput{Policy: verdict.DefaultPolicy(), AcceptNoisy: tc.acceptNoisy, MaxInvalidShare: 0.25})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		switch {
		case tc.refused == "" && len(refused) != 0:
			t.Errorf("%s: refused %v", tc.name, refused)
		case tc.refused != "" && (len(refused) != 1 || !strings.Contains(refused[0].Error(), tc.refused) || !strings.Contains(refused[0].Error(), "--accept-noisy")):
			t.Errorf("%s: refused %v, want one naming %q and --accept-noisy", tc.name, refused, tc.refused)
		}
		if tc.refused == "" && len(runs[0].Rules) == 0 {
			t.Errorf("%s: no gate rules attached to the kept run", tc.name)
		}
		switch {
		case tc.note == "" && len(notes) != 0:
			t.Errorf("%s: notes %v", tc.name, notes)
		case tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0].Text, tc.note) || notes[0].Source != tc.run.Source):
			t.Errorf("%s: notes %v, want one from %s saying %q", tc.name, notes, tc.run.Source, tc.note)
		}
		if got := strings.Join(runs[0].Warnings, "\n"); (tc.warning == "") != (got == "") || !strings.Contains(got, tc.warning) {
			t.Errorf("%s: recorded warnings %q, want %q", tc.name, got, tc.warning)
		}
	}
}

// TestScreenBadRule: a workload gate rule that does not resolve stops
// the screen with an error naming the run's file.
func TestScreenBadRule(t *testing.T) {
	t.Parallel()
	run := screenRun("bad", 1, 1, 1, 1, 1)
	run.Result.Workload.Spec = json.RawMessage(`{"gate": [{"metric": "no_such_metric", "tolerance": "5%"}]}`)
	_, _, err := Screen([]baseline.Run{run}, ScreenInput{Policy: verdict.DefaultPolicy(), MaxInvalidShare: 0.25})
	if err == nil || !strings.HasPrefix(err.Error(), "bad.json: ") {
		t.Errorf("err %v, want one naming bad.json", err)
	}
}
