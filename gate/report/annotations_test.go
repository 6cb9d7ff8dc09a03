package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestAnnotations: a failed run first, regressions and refusals as
// errors, undecided gated cells as warnings, nothing for a passing or an
// ungated cell or an allowed missing workload, and no more than the run
// page shows.
func TestAnnotations(t *testing.T) {
	c := &verdict.Comparison{
		Cells: []verdict.Cell{
			{Workload: "a", Label: "TPOT p50", Gated: true, Outcome: verdict.Regression, Change: 12, Tolerance: 3},
			{Workload: "a", Label: "TTFT p50", Gated: true, Outcome: verdict.Inconclusive, Change: 4, Tolerance: 5},
			{Workload: "a", Label: "ITL p50", Gated: true, Outcome: verdict.Pass},
			{Workload: "a", Label: "E2EL p99", Gated: false, Outcome: verdict.Regression},
		},
		Workloads: []verdict.Workload{
			{Cell: "a", Status: verdict.Compared},
			{Cell: "b", Status: verdict.MissingBaseline, Message: "no baseline for b"},
			{Cell: "c", Status: verdict.MissingBaseline, Allowed: true},
		},
	}
	got := Annotations(c, "server died")
	var lines []string
	for _, a := range got {
		lines = append(lines, fmt.Sprintf("%v|%s", a.Error, a.Title))
	}
	want := []string{"true|perfgate: run failed", "true|perfgate: regression in a", "false|perfgate: undecided in a", "true|perfgate: b not compared"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("annotations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(got[1].Message, "TPOT p50 +12") || !strings.Contains(got[1].Message, "tolerance") || got[3].Message != "no baseline for b" {
		t.Errorf("messages %q, %q", got[1].Message, got[3].Message)
	}
	if n := len(Annotations(c, "")); n != 3 {
		t.Errorf("a completed run: %d annotations, want 3", n)
	}
	many := &verdict.Comparison{}
	for i := range 30 {
		many.Cells = append(many.Cells, verdict.Cell{Workload: fmt.Sprint(i), Gated: true, Outcome: verdict.Regression})
	}
	if n := len(Annotations(many, "")); n != MaxAnnotations {
		t.Errorf("30 regressions: %d annotations, want %d", n, MaxAnnotations)
	}
}
