package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// MaxNotes is how many notes the comment and the terminal report show: a
// reader meets the verdict, then a handful of notes, never a wall of
// footnotes (issue 23 counted 24 in the demo's comment and 45 in an A/A
// one). Further kinds are folded into one last note.
const MaxNotes = 6

// note is one kind of caveat with the cells it covers: the comparison's
// warnings (data, per cell, workload or comparison) grouped by what they
// say, each with the action that removes it.
type note struct {
	kind   string
	rank   int      // lower is shown first: what blocks a decision first
	title  string   // what the caveat is, with its count
	detail string   // the worst case in the reader's words ("" when none)
	cells  []string // "workload: metric" or workload names, in report order
	action string   // what removes it
	texts  []string // the distinct warning texts behind it
	// quoted: the action comes from a warning's text (escaped for
	// markdown), not from noteKinds (written here, code spans kept).
	quoted bool
	unit   string // what cells counts: "cell" or "workload"
}

// noteKind classifies one warning text: its kind, rank, a title for n
// cells ("%d" is the count) and the action that removes it. Warnings of no
// known kind keep their own text and are grouped by it.
type noteKind struct {
	kind, match, title, action string
	rank                       int
}

// noteKinds are matched in order against each warning (substring match on
// the texts verdict, ab and the pipeline write).
var noteKinds = []noteKind{
	{"missing", "is missing from", "%s: a gated metric missing from one run", "record both runs with a perfgate that measures it, or ungate it", 0},
	{"invalid", "invalid", "%s with invalid trials left out", "fix the cause named in the trial's reason (see Invalid trials) and rerun", 1},
	{"between", "cannot decide this cell", "%s that more trials cannot decide (between-session noise)", "`perfgate calibrate` where the noise is assumed, else more baseline sessions (a history), `perfgate ab` (both builds in one session) or a wider tolerance: the undecided table says which for each", 2},
	{"noise", "minimum detectable change", "%s too noisy to decide a change of their tolerance", "more requests per trial (a steadier percentile), more trials, or `perfgate calibrate`", 3},
	{"baseline-trials", "larger part of this cell's noise", "%s limited by the baseline's trials", "promote a baseline recorded with more trials (or keep a history of several)", 4},
	{"few-trials", "too few trials", "%s with too few trials (assumed noise)", "run at least the policy's min_trials per arm", 5},
	{"zero", "is 0 in", "%s with zero values", "check the failed requests of those trials", 6},
	{"zero", "zero value", "%s with zero values", "check the failed requests of those trials", 6},
	{"calibrate", "between-session noise not calibrated", "between-session noise not calibrated: assumed, not measured", "`perfgate calibrate` (or a baseline history) measures it", 7},
	{"calibrate", "resident servers", "between-session noise not calibrated: assumed, not measured", "`perfgate calibrate` measures it", 7},
	{"outlier", "as an outlier", "%s with an outlier trial left out", "none needed; if it recurs, check the runner for interference (Runner health)", 8},
	{"own-spread", "own spread only", "%s tested on their own spread (no noise prior fitted)", "more trials per workload, or more workloads of the metric, give a pooled prior", 9},
	{"old-baseline", "older than the candidate", "%s compared with an old baseline", "promote a fresh baseline", 10},
	{"mismatch", "despite differing environment", "%s compared despite a differing environment", "run both on the same environment, or re-baseline", 10},
	{"substitute", "gated instead", "%s gated on a substitute statistic", "record the gated statistic itself (a longer trial or the detailed records)", 11},
}

// notesOf groups every caveat of the comparison into notes, most pressing
// first.
func notesOf(d *Data) []*note {
	c := d.Comparison
	byKind := map[string]*note{}
	var order []*note
	add := func(text, where, unit string) {
		k := noteKind{kind: "other:" + text, title: "%s: " + text, rank: 3} // the gate's own findings (drift, baseline choice) rank high
		for _, nk := range noteKinds {
			if strings.Contains(text, nk.match) {
				k = nk
				break
			}
		}
		n := byKind[k.kind]
		if n == nil {
			n = &note{kind: k.kind, rank: k.rank, title: k.title, action: k.action, unit: unit}
			byKind[k.kind] = n
			order = append(order, n)
		}
		if where != "" && (len(n.cells) == 0 || n.cells[len(n.cells)-1] != where) {
			n.cells = append(n.cells, where)
		}
		if !contains(n.texts, text) {
			n.texts = append(n.texts, text)
		}
	}
	reg, inc, _ := listedCells(c)
	seen := map[*verdict.Cell]bool{}
	var cells []*verdict.Cell
	for _, l := range append(reg, inc...) {
		cells, seen[l.cell] = append(cells, l.cell), true
	}
	for i := range c.Cells {
		if cell := &c.Cells[i]; cell.Gated && !seen[cell] {
			cells = append(cells, cell)
		}
	}
	for _, cell := range cells {
		for _, w := range cell.Warnings {
			add(w, cell.Workload+": "+cell.Label, "cell")
		}
	}
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared {
			continue // said in the not-compared lines
		}
		for _, warn := range w.Warnings {
			add(warn, w.Cell, "workload")
		}
	}
	for _, w := range c.Warnings {
		add(w, "", "")
	}
	for _, n := range order {
		finishNote(d, n, cells)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].rank < order[j].rank })
	return order
}

// finishNote writes a note's title with its count, its detail and, for
// notes whose action lives in the warning itself, that action.
func finishNote(d *Data, n *note, cells []*verdict.Cell) {
	count := ""
	switch {
	case len(n.cells) == 1:
		count = "1 " + n.unit
	case len(n.cells) > 1:
		count = fmt.Sprintf("%d %ss", len(n.cells), n.unit)
	default:
		count = "the comparison"
	}
	if strings.HasPrefix(n.kind, "other:") {
		n.title = fmt.Sprintf("%s: %s", count, n.texts[0])
		n.action, n.quoted = "", true // the warning's own words say what to do
	} else if strings.Contains(n.title, "%s") {
		n.title = fmt.Sprintf(n.title, count)
	}
	switch n.kind {
	case "noise":
		n.detail = noiseInWords(d, cells)
	case "zero", "missing", "substitute", "mismatch", "old-baseline":
		n.detail = n.texts[0]
		if len(n.texts) > 1 {
			n.detail += fmt.Sprintf(" (and %d more like it)", len(n.texts)-1)
		}
	case "invalid":
		var parts []string
		for _, w := range d.Comparison.Workloads {
			if contains(n.cells, w.Cell) {
				parts = append(parts, w.Cell+": "+strings.TrimPrefix(invalidBySide(d, w, false), "; "))
			}
		}
		n.detail = strings.Join(parts, "; ")
	}
}

// noiseInWords says the noisiest gated cell's case in the reader's words:
// "TTFT p99 of w varies 45 % between trials at 24 requests; with 5 trials
// only a change above 60 % can be decided (tolerance 6 %)". A detectable
// change above 100 % is never printed as a number.
func noiseInWords(d *Data, cells []*verdict.Cell) string {
	var worst *verdict.Cell
	for _, cell := range cells {
		if cell.Absolute || cell.Tolerance <= 0 || cell.MDE <= cell.Tolerance {
			continue
		}
		if worst == nil || cell.MDE/cell.Tolerance > worst.MDE/worst.Tolerance {
			worst = cell
		}
	}
	if worst == nil {
		return ""
	}
	cv := max(worst.Candidate.CV, worst.Baseline.CV)
	s := fmt.Sprintf("the noisiest, %s of %s, varies %s between trials", worst.Label, worst.Workload, plainPercent(100*cv))
	if r := requestsPerTrial(d, worst.Workload); r > 0 {
		s += fmt.Sprintf(" at %d requests per trial", r)
	}
	s += fmt.Sprintf("; with %d vs %d trials", worst.Baseline.N, worst.Candidate.N)
	if worst.MDE > 100 {
		s += " not even a doubling can be decided"
	} else {
		s += fmt.Sprintf(" only a change above %s can be decided", plainPercent(worst.MDE))
	}
	return s + fmt.Sprintf(" (tolerance %s)", Tolerance(worst))
}

// plainPercent is an unsigned percentage with two significant digits
// ("45 %", "7.5 %").
func plainPercent(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f %%", v)
	}
	return fmt.Sprintf("%.1f %%", v)
}

// requestsPerTrial is the completed requests of the candidate's first
// valid trial of a workload, 0 when unknown.
func requestsPerTrial(d *Data, workload string) int {
	r := d.Candidates[workload]
	if r == nil {
		return 0
	}
	for _, t := range r.Trials {
		if t.Valid && t.Completed > 0 {
			return t.Completed
		}
	}
	return 0
}

// shownNotes is at most MaxNotes notes: beyond that the last one folds the
// rest ("4 more kinds of caveat on 9 cells ...").
func shownNotes(notes []*note) []*note {
	if len(notes) <= MaxNotes {
		return notes
	}
	out := append([]*note(nil), notes[:MaxNotes-1]...)
	rest := notes[MaxNotes-1:]
	cells := map[string]bool{}
	for _, n := range rest {
		for _, c := range n.cells {
			cells[c] = true
		}
	}
	return append(out, &note{kind: "more", title: fmt.Sprintf("%d more kinds of caveat on %d cells", len(rest), len(cells)),
		action: "each is listed with its cells in the full report (report.md) and comparison.json"})
}

// cellList names up to max cells, then how many more.
func cellList(cells []string, max int) string {
	if len(cells) <= max {
		return strings.Join(cells, ", ")
	}
	return strings.Join(cells[:max], ", ") + fmt.Sprintf(" and %d more", len(cells)-max)
}

// notesMarkdown renders the notes as a short list; full lists every kind
// (the untrimmed report), otherwise at most MaxNotes.
func notesMarkdown(notes []*note, full bool) string {
	if !full {
		notes = shownNotes(notes)
	}
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n**Notes**\n\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "- **%s**", Escape(n.title))
		if n.detail != "" {
			fmt.Fprintf(&b, ": %s", Escape(Truncate(n.detail, 300)))
		}
		if len(n.cells) > 0 && n.kind != "more" && n.kind != "invalid" {
			fmt.Fprintf(&b, " (%s)", Escape(cellList(n.cells, 4)))
		}
		if a := strings.TrimSuffix(n.action, "."); a != "" {
			if n.quoted {
				a = Escape(a)
			}
			fmt.Fprintf(&b, ". → %s", a)
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// notesText renders at most MaxNotes notes for the terminal, one line
// each, cells shortened.
func notesText(notes []*note) string {
	notes = shownNotes(notes)
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nNotes:\n")
	for _, n := range notes {
		line := n.title
		if n.detail != "" {
			line += ": " + n.detail
		}
		if len(n.cells) > 0 && n.kind != "more" && n.kind != "invalid" {
			line += " (" + cellList(n.cells, 2) + ")"
		}
		if n.action != "" {
			line += " -> " + strings.TrimSuffix(n.action, ".")
		}
		fmt.Fprintf(&b, "  - %s\n", plain(Truncate(line, 400)))
	}
	return b.String()
}
