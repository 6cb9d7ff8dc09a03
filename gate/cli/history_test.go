package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
)

// spread40 is a run of cell whose TPOT p50 spreads about 40 % across its
// trials (a load spike), everything else quiet.
func spread40(cell string, n int) *result.Result {
	r := compareTestResult(cell, n, 1)
	for i := range r.Trials {
		z := -1.5 + 3*float64(i)/float64(n-1)
		r.Trials[i].Values["tpot_ms.p50"] *= math.Exp(0.4 * z)
	}
	return r
}

func TestBaselineUpdateRefusesASpoiledRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "baselines")
	from := writeResult(t, filepath.Join(dir, "out", "a.json"), spread40("a", 10))
	code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", store)
	if code != ExitInvalid || !strings.Contains(errs, `workload "a": tpot_ms.p50 spread across trials is`) || !strings.Contains(errs, "--accept-noisy") {
		t.Fatalf("exit %d, stderr %q: want a refusal naming the TPOT spread", code, errs)
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("the refused run was written")
	}
	code, _, errs = runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", store, "--accept-noisy")
	if code != ExitPass || !strings.Contains(errs, "kept with --accept-noisy") {
		t.Fatalf("--accept-noisy: exit %d, stderr %q", code, errs)
	}
	got, err := result.ReadDir(baseline.Store{Root: store}.Dir("p"))
	if err != nil {
		t.Fatal(err)
	}
	if w := got[0].Provenance.Warnings; len(w) != 1 || !strings.Contains(w[0], "tpot_ms.p50") {
		t.Errorf("recorded warnings %q", w)
	}
	if len(got[0].Provenance.Rules) == 0 || got[0].Provenance.RulesHash == "" {
		t.Errorf("no gate rules stored: %+v", got[0].Provenance)
	}
}

func TestBaselineUpdateWarnsBelowTenTrials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from := writeResult(t, filepath.Join(dir, "a.json"), compareTestResult("a", 5, 1))
	code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", filepath.Join(dir, "b"))
	if code != ExitPass || !strings.Contains(errs, `workload "a" has 5 valid trials; a baseline should have at least 10`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestHistoryCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "baselines")
	for night := 0; night < 12; night++ {
		factor := 1.0
		if night >= 6 {
			factor = 1.10
		}
		r := compareTestResult("chat", 10, factor)
		r.StartedAt = time.Date(2026, 11, 1+night, 3, 0, 0, 0, time.UTC)
		from := writeResult(t, filepath.Join(dir, "run", "chat.json"), r)
		sha := strings.Repeat(string(rune('a'+night)), 40)
		if code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", store, "--git-sha", sha); code != ExitPass {
			t.Fatalf("night %d: %s", night, errs)
		}
	}
	code, out, errs := runCLI("history", "--profile", "p", "--baselines", store)
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "TPOT p50 rose from run 7") || !strings.Contains(out, "ggggggg") {
		t.Errorf("text output does not name the step's run and commit:\n%s", out)
	}
	for _, f := range []string{"markdown", "csv", "json", "html"} {
		code, out, errs := runCLI("history", "--profile", "p", "--baselines", store, "--format", f, "--metric", "tpot_ms.p50")
		if code != ExitPass || !strings.Contains(out, "ggggggg") {
			t.Errorf("--format %s: exit %d %s\n%s", f, code, errs, out)
		}
	}
	page := filepath.Join(dir, "site", "history.html")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI("history", "--profile", "p", "--baselines", store, "--format", "html", "--out", page); code != ExitPass || out != "" {
		t.Fatalf("--format html --out: exit %d, stdout %q, stderr %s", code, out, errs)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "step at run 7, ggggggg") {
		t.Errorf("--out %s: err %v, page without the chart's step:\n%s", page, err, b)
	}
	if code, _, errs := runCLI("history", "--profile", "p", "--baselines", store, "--format", "xml"); code != ExitInvalid || !strings.Contains(errs, "--format") {
		t.Errorf("--format xml: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("history", "--profile", "none", "--baselines", store); code != ExitInvalid || !strings.Contains(errs, "no history") {
		t.Errorf("missing profile: exit %d %s", code, errs)
	}
}

// A run whose TPOT spreads 10 % passes the assumed 5 % noise (3x is 15 %)
// but is refused against a calibration that measured 1 %.
func TestBaselineUpdateRefusesAgainstTheCalibration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := baseline.Store{Root: filepath.Join(dir, "baselines")}
	r := compareTestResult("a", 10, 1)
	for i := range r.Trials {
		r.Trials[i].Values["tpot_ms.p50"] *= math.Exp(0.10 * (-1.5 + 3*float64(i)/9))
	}
	from := writeResult(t, filepath.Join(dir, "out", "a.json"), r)
	args := []string{"baseline", "update", "--from", from, "--profile", "p", "--baselines", store.Root}
	if code, _, errs := runCLI(args...); code != ExitPass {
		t.Fatalf("without calibration: exit %d %s", code, errs)
	}
	n := &baseline.Noise{Schema: baseline.NoiseSchema, Profile: "p", CreatedAt: time.Now().UTC(), Restarts: 3, TrialsPerRestart: 3,
		Cells: map[string]baseline.NoiseCell{"a": {WorkloadHash: r.Workload.Hash, Metrics: map[string]baseline.NoiseMetric{
			"tpot_ms.p50": {Scale: baseline.ScaleLog, WithinVar: 1e-4, WithinDF: 6, BetweenVar: 1e-4, BetweenDF: 2, RawBetweenVar: 1e-4, Sessions: 3, Trials: 9},
		}}}}
	if _, err := store.WriteNoise("p", n); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(args...)
	if code != ExitInvalid || !strings.Contains(errs, "tpot_ms.p50 spread across trials") || !strings.Contains(errs, "(calibration)") {
		t.Errorf("with a 1 %% calibration: exit %d, stderr %q", code, errs)
	}
}
