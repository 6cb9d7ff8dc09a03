package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Data is everything a report shows: the finished comparison and the run
// facts behind it. Only Comparison is required.
type Data struct {
	Comparison *verdict.Comparison
	// Profile names the baseline profile; it goes into the hidden marker
	// that lets the PR comment be found and updated in place.
	Profile string
	// Candidates and Baselines are the compared result files by workload
	// cell, for the serving-benchmark facts (model, server arguments,
	// errors, percentiles). Either may be nil.
	Candidates map[string]*result.Result
	Baselines  map[string]*result.Result
	// ResultPaths maps a cell to where its candidate result file (the raw
	// JSON) was written, as the reader should see it.
	ResultPaths map[string]string
	// BaselinePaths maps a cell to its baseline file.
	BaselinePaths map[string]string
	// FullReport is where the untrimmed report is written (report.md of
	// the output directory, never the trimmed comment itself); the trimmed
	// PR comment points there.
	FullReport string
	// History holds the promoted baseline runs of each workload cell,
	// oldest first, from baselines/<profile>/history/<cell>.jsonl; the
	// list of regressed and undecided cells draws a trend from it. Nil
	// means no history was read.
	History map[string][]Run
	// Trend is how many promoted runs the trend shows before the
	// candidate (TrendRuns when 0).
	Trend int
	// RunError, when set, says why the run did not complete. The report
	// then says so first: partial results never pass.
	RunError string
	// ServerFailure, when set, says how the server perfgate launched
	// failed; the markdown report shows it with the end of its log.
	ServerFailure *ServerFailure
	// Footer is an optional line under the report (tool version, run link).
	Footer string
	// AB, when set, says the comparison is the paired verdict of an
	// interleaved experiment (perfgate ab): B is the candidate, A the
	// baseline, and the report calls them so.
	AB *AB
	// Artifact, when its Name is set, is where the whole output directory
	// (full report, raw results) is kept: the Action uploads it as a
	// workflow artifact, listed on the run page at URL. The footer links it.
	Artifact Artifact
	// Head is the candidate's commit, as the CI names it (GITHUB_SHA); the
	// header reads "base `1a2b3c4` (main, 2 days before this run) → head
	// `def5678`". Empty when unknown.
	Head Revision
	// Runner names the machine the candidate ran on (RUNNER_NAME); "" when
	// unknown.
	Runner string
	// OutDir is the output directory the artifact holds: a path under it
	// is shown relative to it, and any other absolute path by its file name
	// only, so no path of the runner's disk reaches a comment.
	OutDir string
}

// Revision is a commit and the branch or ref it was on.
type Revision struct {
	Commit string
	Ref    string
}

// Artifact names an uploaded copy of the output directory.
type Artifact struct {
	Name string // artifact name, as the Action uploads it
	URL  string // the page that lists it: the workflow run
}

// Marker is the hidden HTML comment that identifies perfgate's comment
// for profile on a pull request, so a later run edits it instead of adding
// another. The profile is reduced to a safe character set so it cannot end
// the comment early.
func Marker(profile string) string {
	p := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == '/':
			return r
		}
		return '_'
	}, profile)
	if p == "" {
		p = "default"
	}
	return "<!-- perfgate:" + p + " -->"
}

// verdictOf is the overall outcome the report shows: a run error overrides
// the comparison (an incomplete run is never a pass).
func (d *Data) verdictOf() string {
	if d.RunError != "" {
		return "run-failed"
	}
	return string(d.Comparison.Verdict)
}

// Headline is the report's first line without markdown decoration: the
// verdict and, when there is one, the headline cell with its change, its
// interval and the trial counts, e.g. "Regression in cx8-4000-1000-c16:
// TPOT p50 +7.9 % (90 % CI +6.1 to +9.8 %), 5 vs 5 trials". Names are not
// escaped here; callers escape for their medium.
func Headline(d *Data) string {
	if paired(d) {
		return "B vs A: " + headline(d)
	}
	return headline(d)
}

func headline(d *Data) string {
	c := d.Comparison
	if d.RunError != "" {
		return "Run failed: " + d.RunError + " (partial results, not a pass)"
	}
	reg, inc, _ := listedCells(c)
	switch c.Verdict {
	case verdict.Regression:
		// The list's row 1: the one ordering of the report (severity).
		top := c.Headline
		if len(reg) > 0 {
			top = reg[0].cell
		}
		s := "Regression in " + cellSummary(top, armsOf(d))
		if c.Regressions > 1 {
			s += fmt.Sprintf("; %d regressed metrics in all", c.Regressions)
		}
		return s
	case verdict.Inconclusive:
		budget := "the trial budget"
		if paired(d) {
			budget = "the blocks run"
		}
		s := fmt.Sprintf("Inconclusive: %d of %d gated metrics undecided within %s", c.Inconclusives, c.Family, budget)
		if len(inc) > 0 {
			s += "; " + closest(inc[0].cell)
		}
		return s
	case verdict.Invalid:
		return "Invalid: " + invalidSummary(c)
	case verdict.Pass:
		s := fmt.Sprintf("Pass: no regression in %d gated metrics of %d workloads", c.Family, comparedWorkloads(c))
		if c.Improvements > 0 {
			s += fmt.Sprintf(" (%d improved)", c.Improvements)
		}
		return s
	}
	return strings.ToUpper(string(c.Verdict[:1])) + string(c.Verdict[1:])
}

// closest names the undecided cell closest to failing (the undecided
// list's row 1) by how far it could be worse, never by an improvement: "closest to
// failing: w: TTFT p99 +4.1 % (family-wise CI -2.0 to +10.3 %) against a
// 6 % tolerance", or, when no undecided cell measured worse, "none
// measured worse; w: TTFT p99 could be up to +12.0 % against 6 %".
func closest(cell *verdict.Cell) string {
	_, hi, _, _ := decisionOf(cell)
	if cell.Baseline.N == 0 || cell.Candidate.N == 0 {
		return fmt.Sprintf("%s: %s is missing from one run", cell.Workload, cell.Label)
	}
	if cell.Worse > 0 {
		return fmt.Sprintf("closest to failing: %s: %s %s (%s CI %s) against a %s tolerance", cell.Workload, cell.Label, Change(cell), intervalName(cell), Interval(cell), Tolerance(cell))
	}
	return fmt.Sprintf("none measured worse; %s: %s could still be up to %s worse against a %s tolerance", cell.Workload, cell.Label, worseText(cell, hi), Tolerance(cell))
}

// worseText formats a direction-adjusted value as "worse by" does.
func worseText(cell *verdict.Cell, w float64) string {
	if cell.Absolute {
		return Points(w)
	}
	return Percent(w)
}

// cellSummary is "cell: TPOT p50 +7.9 % (family-wise 99.8 % CI +6.1 to
// +9.8 %), 5 vs 5 trials" ("8 vs 8 blocks" for a paired experiment).
func cellSummary(cell *verdict.Cell, n arms) string {
	if cell == nil {
		return "(no cell)"
	}
	w := verdict.Workload{BaselineTrials: cell.Baseline.N, CandidateTrials: cell.Candidate.N}
	return fmt.Sprintf("%s: %s %s (%s CI %s), %s",
		cell.Workload, cell.Label, Change(cell), intervalName(cell), Interval(cell), n.counts(w, []*verdict.Cell{cell}, false))
}

// invalidSummary names why workloads could not be compared.
func invalidSummary(c *verdict.Comparison) string {
	var parts []string
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared && !w.Allowed {
			parts = append(parts, fmt.Sprintf("%s (%s)", w.Cell, w.Status))
		}
	}
	if len(parts) == 0 {
		return "the comparison could not be made"
	}
	n := len(parts)
	if n > 3 {
		parts = append(parts[:3], fmt.Sprintf("%d more", n-3))
	}
	return fmt.Sprintf("%d workload(s) not compared: %s", n, strings.Join(parts, ", "))
}

func comparedWorkloads(c *verdict.Comparison) int {
	n := 0
	for _, w := range c.Workloads {
		if w.Status == verdict.Compared {
			n++
		}
	}
	return n
}

// natural turns a direction-adjusted value (positive = worse, the scale of
// Cell.Worse) back into the metric's own sign, so intervals read like the
// change: a throughput drop is negative. Relative metrics use the ratio
// (Worse is baseline/candidate - 1 for higher-is-better metrics).
func natural(cell *verdict.Cell, worse float64) float64 {
	if cell.Direction != metrics.HigherIsBetter.String() {
		return worse
	}
	if cell.Absolute {
		return -worse
	}
	return 100 * (1/(1+worse/100) - 1)
}

// Change formats the cell's change with its natural sign.
func Change(cell *verdict.Cell) string {
	if cell.Absolute {
		return Points(cell.Change)
	}
	return Percent(cell.Change)
}

// Interval formats the interval the cell's outcome was decided on (see
// shown) with the change's sign.
func Interval(cell *verdict.Cell) string {
	l, h, _, _ := decisionOf(cell)
	lo, hi := natural(cell, l), natural(cell, h)
	if lo > hi {
		lo, hi = hi, lo
	}
	if cell.Absolute {
		return PointsRange(lo, hi)
	}
	return Range(lo, hi)
}

// Tolerance formats the cell's tolerance: "±3 %" or "0.5 pp".
func Tolerance(cell *verdict.Cell) string {
	t := strconv.FormatFloat(round(cell.Tolerance, 2), 'f', -1, 64)
	if cell.Absolute {
		return t + " pp"
	}
	return t + " %"
}

// cellValue formats an arm's centre with the metric's unit.
func cellValue(cell *verdict.Cell, a verdict.Arm) string {
	if a.N == 0 || math.IsNaN(a.Centre) {
		return "–"
	}
	return Value(a.Centre, cell.Unit)
}

// Run is one promoted baseline run of a workload cell: a point of the
// cell's trend. The caller summarises each history line the way the
// comparison summarises an arm (Centre as verdict.Arm.Centre), so the
// report draws numbers and computes no statistics.
type Run struct {
	Commit     string
	PromotedAt time.Time
	// Centre is the run's centre of each metric by metric id.
	Centre map[string]float64
}

// TrendRuns is the default number of promoted runs a trend shows.
const TrendRuns = 10
