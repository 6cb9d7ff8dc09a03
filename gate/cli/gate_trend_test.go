package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/report"
)

// TestGateCommentShowsTrend: `gate --from` with a history file for the
// regressed cell puts that cell's trend (the promoted runs, then the
// candidate) into the comment's list; a cell without history has none.
func TestGateCommentShowsTrend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(cfg, []byte("profile: p\npolicy:\n  gated: [tpot_ms.p50]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	baseDir := filepath.Join(dir, "baselines", "p")
	candDir := filepath.Join(dir, "cand")
	writeResult(t, filepath.Join(baseDir, "a.json"), compareTestResult("a", 5, 1))
	writeResult(t, filepath.Join(candDir, "a.json"), compareTestResult("a", 5, 2))
	var hist []byte
	for i, tpot := range []float64{11.8, 12.1, 12.0} {
		line, err := json.Marshal(baseline.HistoryLine{GitSHA: "abcdef0123456789", PromotedAt: time.Date(2026, 11, 20+i, 0, 0, 0, 0, time.UTC),
			WorkloadHash: "hash-a", Trials: []map[string]float64{{"tpot_ms.p50": tpot}, {"tpot_ms.p50": tpot}}})
		if err != nil {
			t.Fatal(err)
		}
		hist = append(append(hist, line...), '\n')
	}
	if err := os.MkdirAll(filepath.Join(baseDir, "history"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(baseDir, "history", "a.jsonl"), hist, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, errOut := runCLI("gate", "--config", cfg, "--from", candDir, "--baselines", filepath.Join(dir, "baselines"), "-o", out)
	if code != ExitRegression {
		t.Fatalf("gate --from: exit %d, want %d\n%s\n%s", code, ExitRegression, stdout, errOut)
	}
	md, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	// 11.8, 12.1, 12.0, then the candidate at 12 × 2 = 24 (wiggled): a
	// change beyond the uncalibrated default between-session noise (8 %).
	// The span after it is highest over lowest: 24/11.8 - 1 = 103 %, give
	// or take the candidate's wiggle.
	want := "`" + report.Sparkline([]float64{11.8, 12.1, 12.0, 24}) + "` 10"
	if !strings.Contains(string(md), "| Trend |") || !strings.Contains(string(md), want) {
		t.Errorf("comment.md lacks the trend %q:\n%s", want, md)
	}
	// compare reads the same history from the profile directory.
	code, stdout, errOut = runCLI("compare", "--config", cfg, "--baseline", baseDir, "--candidate", candDir, "--format", "markdown")
	if code != ExitRegression || !strings.Contains(stdout, want) {
		t.Errorf("compare --format markdown: exit %d, lacks the trend %q:\n%s\n%s", code, want, stdout, errOut)
	}
	// A history file that does not parse costs the trend, named with
	// its line, not the comparison.
	if err := os.WriteFile(filepath.Join(baseDir, "history", "a.jsonl"), append(hist, "{oops\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut = runCLI("compare", "--config", cfg, "--baseline", baseDir, "--candidate", candDir, "--format", "markdown")
	if code != ExitRegression || strings.Contains(stdout, "| Trend |") || !strings.Contains(errOut, "a.jsonl:4") {
		t.Errorf("corrupt history: exit %d, stderr %q\n%s", code, errOut, stdout)
	}
}
