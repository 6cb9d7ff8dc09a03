package bisect

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/report"
)

// JSON writes r as indented JSON (schema perfgate.bisect/v1).
func JSON(w io.Writer, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Decode reads a Result written by JSON, checking its schema.
func Decode(rd io.Reader) (*Result, error) {
	var r Result
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("bisect result: %w", err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("bisect result: schema %q, want %q", r.Schema, Schema)
	}
	return &r, nil
}

// Markdown writes r for the nightly issue: the culprit(s) first, then the
// ends, the path of steps, what it cost and the error bound. Strings from
// git (subjects, authors) are escaped.
func Markdown(w io.Writer, r *Result) error {
	var b strings.Builder
	label := metrics.Label(r.Metric)
	fmt.Fprintf(&b, "## perfgate bisect: %s, %s..%s\n\n", label, commitRef(r, 0), commitRef(r, len(r.Commits)-1))
	switch r.Status {
	case Found:
		b.WriteString("**Found.** ")
	case NotFound:
		b.WriteString("**Not found.** ")
	case NoDifference:
		b.WriteString("**Nothing to search.** ")
	case Improved:
		b.WriteString("**Improved, not regressed.** ")
	case Interrupted:
		b.WriteString("**Stopped (incomplete).** ")
	}
	b.WriteString(report.Escape(r.Message) + "\n\n")
	if len(r.Culprits) > 0 {
		b.WriteString("| commit | subject | author | change vs its parent | share of the step |\n|---|---|---|---|---|\n")
		for _, c := range r.Culprits {
			fmt.Fprintf(&b, "| %s | %s | %s | %s [%s, %s] | %.0f %% [%.0f %%, %.0f %%] |\n", report.Code(short(c.Commit.SHA)),
				report.Escape(c.Commit.Subject), report.Escape(c.Commit.Author), pct(c.Effect.Worse), pct(c.Effect.Low), pct(c.Effect.High),
				100*c.Share, 100*c.ShareLow, 100*c.ShareHigh)
		}
		b.WriteString("\n")
	}
	if r.Ends != nil && r.Ends.Blocks > 0 {
		fmt.Fprintf(&b, "Ends: the bad end is %s [%s, %s] against the good one (%d blocks, paired verdict: %s at the tolerance %.1f %%), over %d commits.\n\n",
			pct(r.Ends.Worse), pct(r.Ends.Low), pct(r.Ends.High), r.Ends.Blocks, r.Ends.Outcome, 100*r.Tolerance, len(r.Commits)-1)
	}
	if len(r.Steps) > 0 {
		b.WriteString("| step | range | midpoint | midpoint vs low end | high end vs midpoint | blocks | decision |\n|---|---|---|---|---|---|---|\n")
		for i, s := range r.Steps {
			fmt.Fprintf(&b, "| %d | %s..%s (%d) | %s | %s [%s, %s] | %s [%s, %s] | %d | %s |\n", i+1,
				commitRef(r, s.Lo+1), commitRef(r, s.Hi), s.Hi-s.Lo, commitRef(r, s.Mid),
				pct(s.Left.Worse), pct(s.Left.Low), pct(s.Left.High), pct(s.Right.Worse), pct(s.Right.Low), pct(s.Right.High),
				s.Left.Blocks+s.Right.Blocks, s.Decision)
		}
		b.WriteString("\n")
	}
	for _, o := range r.Open {
		fmt.Fprintf(&b, "- Undecided: %s..%s (%d commits): %s\n", commitRef(r, o.Lo+1), commitRef(r, o.Hi), o.Hi-o.Lo, report.Escape(o.Why))
	}
	for _, wr := range r.Warnings {
		fmt.Fprintf(&b, "- Note: %s\n", report.Escape(wr))
	}
	if len(r.Open)+len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "GPU time: %s in %d blocks (budget %d). A wrong commit is named with a chance of at most %.0f %% (%d decisions on the path to a culprit, each at %.2f %%). Intervals are %.0f %%.\n",
		Hours(r.GPUSeconds), r.Blocks, r.Budget, 100*r.Alpha, r.MaxSteps, 100*r.StepAlpha, 100*Level)
	_, err := io.WriteString(w, b.String())
	return err
}

// commitRef is commit i as a code span.
func commitRef(r *Result, i int) string {
	if i < 0 || i >= len(r.Commits) {
		return "?"
	}
	return report.Code(short(r.Commits[i].SHA))
}

// Hours formats server seconds as hours or minutes.
func Hours(s float64) string {
	if s >= 3600 {
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.0f min", s/60)
}
