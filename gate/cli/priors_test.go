package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestCompareUsesCalibration: perfgate compare against a profile's
// baselines reads the profile's noise file. Without it the documented
// between-session default keeps an unchanged build undecided and the
// report says the noise is not calibrated; with a calibration measuring
// little between-session noise the same files pass; a cell whose workload
// changed since the calibration is named and not given its noise.
func TestCompareUsesCalibration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := baseline.Store{Root: filepath.Join(dir, "baselines")}
	prof := store.Dir("sim-fast")
	for _, cell := range []string{"a", "b"} {
		writeResult(t, filepath.Join(prof, cell+".json"), compareTestResult(cell, 5, 1))
		writeResult(t, filepath.Join(dir, "cand", cell+".json"), compareTestResult(cell, 5, 1))
	}
	compare := func() (ExitCode, string, string) {
		return runCLI("compare", "--baseline", prof, "--candidate", filepath.Join(dir, "cand"))
	}
	code, out, errs := compare()
	if code != ExitInconclusive || !strings.Contains(out, "between-session noise not calibrated") {
		t.Fatalf("uncalibrated: exit %d\n%s%s", code, out, errs)
	}

	n := &baseline.Noise{Schema: baseline.NoiseSchema, Profile: "sim-fast", CreatedAt: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		Tool: result.Tool{Name: "perfgate", Version: "test"}, Restarts: 5, TrialsPerRestart: 5, Cells: map[string]baseline.NoiseCell{}}
	for _, cell := range []string{"a", "b"} {
		ms := map[string]baseline.NoiseMetric{}
		for _, id := range verdict.DefaultGated {
			scale := baseline.ScaleLog
			if verdict.Absolute(id) {
				scale = baseline.ScaleAbsolute
			}
			ms[id] = baseline.NoiseMetric{Scale: scale, WithinVar: 2.5e-5, WithinDF: 20, BetweenVar: 1e-6, RawBetweenVar: 1e-6, BetweenDF: 4, Sessions: 5, Trials: 25}
		}
		hash := "hash-" + cell
		if cell == "b" {
			hash = "an older workload"
		}
		n.Cells[cell] = baseline.NoiseCell{WorkloadHash: hash, Metrics: ms}
	}
	if _, err := store.WriteNoise("sim-fast", n); err != nil {
		t.Fatal(err)
	}
	code, out, errs = compare()
	if !strings.Contains(errs, "the workload of b changed since the calibration") {
		t.Errorf("stale cell not named: %s", errs)
	}
	// b borrows a's calibrated between-session noise (pooled per metric),
	// so nothing falls back on the default.
	if code != ExitPass || strings.Contains(out, "not calibrated") {
		t.Errorf("calibrated: exit %d\n%s%s", code, out, errs)
	}
}

// TestCompareBaselineSessions: two baseline files of one cell are two
// sessions of one baseline, not an error; two candidate files still are.
func TestCompareBaselineSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	one, two := compareTestResult("a", 5, 1), compareTestResult("a", 5, 1.01)
	two.StartedAt = one.StartedAt.Add(24 * time.Hour)
	writeResult(t, filepath.Join(dir, "base", "a-1.json"), one)
	writeResult(t, filepath.Join(dir, "base", "a-2.json"), two)
	writeResult(t, filepath.Join(dir, "cand", "a.json"), compareTestResult("a", 5, 1))
	code, out, errs := runCLI("compare", "--baseline", filepath.Join(dir, "base"), "--candidate", filepath.Join(dir, "cand"), "--format", "json")
	if code == ExitInvalid || !strings.Contains(out, `"baseline_sessions": 2`) {
		t.Errorf("two baseline sessions: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runCLI("compare", "--baseline", filepath.Join(dir, "cand"), "--candidate", filepath.Join(dir, "base"))
	if code != ExitInvalid || !strings.Contains(errs, "run perfgate merge first") {
		t.Errorf("two candidate files of one cell: exit %d\n%s", code, errs)
	}
}
