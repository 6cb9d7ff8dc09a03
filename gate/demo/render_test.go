package demo

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestRenderTrimNoteNamesFullReport: when the demo's comment is trimmed,
// its note names the untrimmed report.md the demo writes, not comment.md
// (the trimmed file itself), by its name in the output directory (no
// absolute path of the runner), and that file holds every workload.
func TestRenderTrimNoteNamesFullReport(t *testing.T) {
	c := &verdict.Comparison{Schema: verdict.SchemaID, Alpha: 0.01, Verdict: verdict.Pass, Look: verdict.Look{Index: 1, Max: 1}}
	for i := 0; i < 400; i++ {
		name := fmt.Sprintf("sweep-workload-%03d-with-a-long-name", i)
		c.Workloads = append(c.Workloads, verdict.Workload{Cell: name, Status: verdict.Compared, BaselineTrials: 5, CandidateTrials: 5})
		for _, id := range verdict.DefaultGated {
			c.Cells = append(c.Cells, verdict.Cell{Workload: name, Metric: id, Label: id, Unit: "ms", Direction: "lower-is-better", Gated: true,
				Baseline: verdict.Arm{N: 5, Centre: 20}, Candidate: verdict.Arm{N: 5, Centre: 20.1}, Change: 0.5, Worse: 0.5,
				CILow: -1, CIHigh: 2, CILevel: 0.9, Tolerance: 3, PAdjusted: 1, Outcome: verdict.Pass})
			c.Family++
			c.Passes++
		}
	}
	dir := t.TempDir()
	res, err := render(&bytes.Buffer{}, Options{Dir: dir, Preset: "fast"}, nil, &pipeline.Outcome{Comparison: c})
	if err != nil {
		t.Fatal(err)
	}
	comment, err := os.ReadFile(res.CommentPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(comment), "Shortened to fit") {
		t.Fatal("the comment was not trimmed: the test does not exercise the note")
	}
	if !strings.Contains(string(comment), report.Code("report.md")) || strings.Contains(string(comment), "comment.md") || strings.Contains(string(comment), dir) {
		t.Errorf("the trim note does not name report.md (or names comment.md):\n%s", comment[len(comment)-400:])
	}
	full, err := os.ReadFile(res.FullReportPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(full), "Shortened to fit") || !strings.Contains(string(full), "sweep-workload-399") {
		t.Error("report.md is not the untrimmed report")
	}
}
