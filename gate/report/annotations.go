package report

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Annotation is one line a CI run page shows beside the verdict
// (GitHub's ::error and ::warning); a warning unless Error.
type Annotation struct {
	Error          bool
	Title, Message string
}

// MaxAnnotations keeps the run page readable: GitHub shows at most 10
// errors and 10 warnings per step anyway.
const MaxAnnotations = 20

// Annotations are what the run page says of a comparison: a failed run
// (runErr, "" when it completed) first, then each regressed gated cell as
// an error and each undecided one as a warning, with its change, interval,
// tolerance and trials, then each workload that was not compared and not
// allowed to be; at most MaxAnnotations.
func Annotations(c *verdict.Comparison, runErr string) []Annotation {
	var list []Annotation
	if runErr != "" {
		list = append(list, Annotation{Error: true, Title: "perfgate: run failed", Message: runErr})
	}
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		msg := fmt.Sprintf("%s %s (interval %s, tolerance %s), %d vs %d trials", cell.Label, Change(cell), Interval(cell), Tolerance(cell), cell.Baseline.N, cell.Candidate.N)
		switch cell.Outcome {
		case verdict.Regression:
			list = append(list, Annotation{Error: true, Title: "perfgate: regression in " + cell.Workload, Message: msg})
		case verdict.Inconclusive:
			list = append(list, Annotation{Title: "perfgate: undecided in " + cell.Workload, Message: msg})
		}
	}
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared && !w.Allowed {
			list = append(list, Annotation{Error: true, Title: "perfgate: " + w.Cell + " not compared", Message: w.Message})
		}
	}
	return list[:min(len(list), MaxAnnotations)]
}
