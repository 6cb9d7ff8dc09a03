package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestEveryWorkloadRegresses pins the scenario the render check's height
// budget is about: if a change in the statistics left some of the 12
// workloads undecided, the comment would be measured for another case.
func TestEveryWorkloadRegresses(t *testing.T) {
	d, err := data(12, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Comparison.Verdict != verdict.Regression {
		t.Fatalf("verdict %s, want regression", d.Comparison.Verdict)
	}
	regressed := map[string]bool{}
	for _, c := range d.Comparison.Cells {
		if c.Outcome == verdict.Regression {
			regressed[c.Workload] = true
		}
	}
	if len(d.Candidates) != 12 || len(regressed) != 12 {
		t.Errorf("%d workloads, %d with a regressed metric; want 12 and 12", len(d.Candidates), len(regressed))
	}
}

// TestRunRepeatable checks the comment is the same on every run (the
// screenshots and heights must not move between runs) and that bad flags
// are refused.
func TestRunRepeatable(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	for _, p := range []string{a, b} {
		if err := run(3, 0, p); err != nil {
			t.Fatal(err)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) || !strings.HasPrefix(string(x), "### ❌ Regression") {
		t.Errorf("comments differ or are not a regression:\n%.300s", x)
	}
	if err := run(0, 0, a); err == nil || !strings.Contains(err.Error(), "-workloads 0") {
		t.Errorf("run(0) = %v, want an error naming -workloads", err)
	}
	if err := run(3, -1, a); err == nil || !strings.Contains(err.Error(), "-history -1") {
		t.Errorf("run(3, -1) = %v, want an error naming -history", err)
	}
}

// TestHistoryGivesATrend checks that with -history every listed cell
// draws a trend from the synthetic history (and without it none does), whose newest run is the baseline the cells were
// compared with (same commit, same centres).
func TestHistoryGivesATrend(t *testing.T) {
	const historyRuns = 8
	d, err := data(12, historyRuns)
	if err != nil {
		t.Fatal(err)
	}
	for cell, b := range d.Baselines {
		runs := d.History[cell]
		if len(runs) != historyRuns {
			t.Fatalf("%s: %d history runs, want %d", cell, len(runs), historyRuns)
		}
		last := runs[len(runs)-1]
		if last.Commit != b.Provenance.GitSHA || !last.PromotedAt.Equal(b.Provenance.PromotedAt) {
			t.Errorf("%s: newest run %s at %v, want the baseline %s at %v", cell, last.Commit, last.PromotedAt, b.Provenance.GitSHA, b.Provenance.PromotedAt)
		}
	}
	for _, c := range d.Comparison.Cells {
		if c.Outcome != verdict.Regression {
			continue
		}
		last := d.History[c.Workload][historyRuns-1].Centre[c.Metric]
		if rel := last/c.Baseline.Centre - 1; rel > 1e-9 || rel < -1e-9 {
			t.Errorf("%s %s: newest history centre %g, baseline centre %g", c.Workload, c.Metric, last, c.Baseline.Centre)
		}
	}
	md, err := comment(12, historyRuns)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "no history") || !strings.Contains(string(md), "| Trend |") {
		t.Errorf("comment without a trend for every listed cell:\n%.2000s", md)
	}
	if md, _ := comment(12, 0); strings.Contains(string(md), "| Trend |") {
		t.Errorf("-history 0 comment has a trend column:\n%.2000s", md)
	}
}

// TestUndecidedScenarios pins the A/A and inconclusive comments the render
// check measures: both undecided, nothing regressed, and each shows the
// undecided metrics with what decides them before its first collapsed
// section.
func TestUndecidedScenarios(t *testing.T) {
	defer func(s string) { scenario = s }(scenario)
	for _, s := range []string{"aa", "inconclusive"} {
		scenario = s
		d, err := data(4, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.Comparison.Verdict != verdict.Inconclusive || d.Comparison.Regressions != 0 {
			t.Errorf("%s: verdict %s with %d regressions, want inconclusive with none", s, d.Comparison.Verdict, d.Comparison.Regressions)
		}
		md, err := comment(4, 0)
		if err != nil {
			t.Fatal(err)
		}
		fold, _, _ := strings.Cut(string(md), "<details>")
		if !strings.Contains(fold, "| Decides it |") {
			t.Errorf("%s: no undecided table above the first collapsed section:\n%s", s, fold)
		}
	}
	scenario = "nonsense"
	if err := run(4, 0, filepath.Join(t.TempDir(), "x.md")); err == nil || !strings.Contains(err.Error(), "-scenario") {
		t.Errorf("run with a bad scenario = %v, want an error naming -scenario", err)
	}
}
