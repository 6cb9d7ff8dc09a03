package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestBaselineUpdateWritesWhatPasses: one workload with 2 valid trials,
// one far noisier than usual, one measured mostly on a busy host and one
// repeated in two files no longer
// block the workload that passes; the update writes it, names each
// skipped file with its reason, and exits 3 (some skipped). Before, the
// whole update was refused (exit 2, nothing written).
func TestBaselineUpdateWritesWhatPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from, store := filepath.Join(dir, "results"), filepath.Join(dir, "baselines")
	writeResult(t, filepath.Join(from, "good.json"), compareTestResult("good", 5, 1))
	writeResult(t, filepath.Join(from, "few.json"), compareTestResult("few", 2, 1))
	noisy := compareTestResult("noisy", 5, 1)
	for i := range noisy.Trials {
		noisy.Trials[i].Values["tpot_ms.p50"] *= []float64{0.6, 1, 1.5, 0.8, 1.9}[i]
	}
	writeResult(t, filepath.Join(from, "noisy.json"), noisy)
	busy := compareTestResult("busy", 5, 1)
	for i := 0; i < 3; i++ {
		busy.Trials[i].Health = &result.Health{CPUs: 2, Summary: result.HealthSummary{MaxLoad1: 9}}
	}
	writeResult(t, filepath.Join(from, "busy.json"), busy)
	writeResult(t, filepath.Join(from, "dup1.json"), compareTestResult("dup", 5, 1))
	writeResult(t, filepath.Join(from, "dup2.json"), compareTestResult("dup", 5, 1))
	code, out, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", store, "--min-trials", "3")
	if code != ExitRunFailed {
		t.Fatalf("exit %d, want %d (some skipped)\n%s%s", code, ExitRunFailed, out, errs)
	}
	if strings.Count(out, "wrote ") != 1 || !strings.Contains(out, "good.json") {
		t.Errorf("stdout %q: want good.json written, only", out)
	}
	for _, want := range []string{
		"wrote 1 workload(s), skipped 5",
		`busy.json: workload "busy": 3 of 5 trials ran on a busy runner (host busy: the load average exceeded the 2 CPUs`,
		`few.json: workload "few": 2 valid trial(s), a baseline needs at least 3`,
		`noisy.json: workload "noisy": tpot_ms.p50 spread across trials`,
		"--accept-noisy",
		`dup1.json: workload cell "dup" is also in`,
		`dup2.json: workload cell "dup" is also in`,
		"promote the skipped workloads again",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	for _, name := range []string{"few", "noisy", "dup", "busy"} {
		if _, err := os.Stat(filepath.Join(store, "p", name+".json")); err == nil {
			t.Errorf("skipped %s was written", name)
		}
	}
	if _, err := os.Stat(filepath.Join(store, "p", "history", "good.jsonl")); err != nil {
		t.Errorf("good's history: %v", err)
	}
	// Only skipped runs: nothing written, exit 2.
	code, _, errs = runCLI("baseline", "update", "--from", filepath.Join(from, "few.json"), "--profile", "q", "--baselines", store, "--min-trials", "3")
	if code != ExitInvalid || !strings.Contains(errs, "nothing written") {
		t.Errorf("all skipped: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(store, "q")); err == nil {
		t.Error("an update that skipped everything created the profile")
	}
}
