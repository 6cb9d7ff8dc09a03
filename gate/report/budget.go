package report

import (
	"fmt"
	"github.com/perfgate/perfgate/gate/verdict"
	"strings"
)

// CommentLimit is GitHub's maximum issue-comment body length in
// characters. Markdown kept for a PR comment must stay under it.
const CommentLimit = 65536

// part is one piece of a budgeted document. Versions are its renderings
// from fullest to smallest; an empty version means the part is left out.
// Parts with a single version (the headline, the verdict tables' last
// resort) are never trimmed.
type part struct {
	name     string
	versions []string
	// order says when the part is trimmed: parts with lower order are
	// shrunk first, one version step at a time.
	order int
	cur   int
}

func (p *part) text() string { return p.versions[p.cur] }

// fit joins the parts in their given order, shrinking them (lowest order
// first) until the whole, including a note naming what was trimmed, fits in
// limit characters (runes, as GitHub counts). limit <= 0 means no limit.
// If even the smallest versions do not fit, the text is cut at a line
// boundary before the limit; since the headline comes first it survives.
func fit(limit int, parts []*part, trimmedNote func(names []string) string) string {
	join := func(note string) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.text())
		}
		b.WriteString(note)
		return b.String()
	}
	var trimmed []string
	seen := map[string]bool{}
	note := ""
	for {
		out := join(note)
		if limit <= 0 || runeLen(out) <= limit {
			return out
		}
		var next *part
		for _, p := range parts {
			if p.cur+1 < len(p.versions) && (next == nil || p.order < next.order) {
				next = p
			}
		}
		if next == nil {
			return cutLines(out, limit)
		}
		next.cur++
		if !seen[next.name] {
			seen[next.name] = true
			trimmed = append(trimmed, next.name)
		}
		note = trimmedNote(trimmed)
	}
}

// cutLines cuts s to at most limit runes at a line boundary and says so.
func cutLines(s string, limit int) string {
	const tail = "\n\n… (cut to fit GitHub's comment size limit)\n"
	max := limit - runeLen(tail) - 16 // room for closing fences and tags
	if max <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) > max {
		r = r[:max]
	}
	cut := string(r)
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	// A cut inside a fenced block or <details> would swallow the notice;
	// close what is open.
	if strings.Count(cut, "```")%2 == 1 {
		cut += "```\n"
	}
	for open := strings.Count(cut, "<details>") - strings.Count(cut, "</details>"); open > 0; open-- {
		cut += "</details>\n"
	}
	return cut + tail
}

func runeLen(s string) int { return len([]rune(s)) }

// defaultTrimmedNote names the trimmed sections and where the untrimmed
// report is: fullReport is its path in the output directory (report.md,
// never the trimmed comment itself), and artifact, when set, the name of
// the artifact the Action uploaded that directory as (the footer links
// it).
func defaultTrimmedNote(fullReport, artifact string) func([]string) string {
	return func(names []string) string {
		path := "report.md"
		if fullReport != "" {
			path = Code(fullReport)
		}
		where := "the untrimmed report is " + path + " in the run's output directory"
		if artifact != "" {
			where = "the untrimmed report is " + path + " in artifact " + Code(artifact) + " (linked below)"
		}
		return fmt.Sprintf("\n> [!NOTE]\n> Shortened to fit GitHub's comment size limit (%s trimmed); %s.\n",
			strings.Join(names, ", "), where)
	}
}

// FirstScreenLines is how many visible lines (as VisibleLines counts them)
// fit GitHub's first screen, 900 px at its 780 px comment column: a table
// row draws about 37 px, a line of text about 24 px plus margins. An
// undecided or A/A comment must show its verdict, its ordered list and
// what would decide each undecided metric within it (issue 23); the render
// test measures the same in Chromium.
const FirstScreenLines = 24

// VisibleLines is the length budget of a PR comment above its collapsed
// details: at most this many lines stay visible (not inside <details>,
// a collapsed section counting as its one summary line, blank lines and
// footnote definitions not counted; GitHub draws footnotes after
// everything else). GitHub draws a table row about 37 px tall and a line
// of text about 24 px plus margins, so 50 such lines, most of them table
// rows, are about 1,800 px: two screens at GitHub's width. Markdown opens
// the regressed workloads' tables only while the comment stays within it.
const VisibleLines = 50

// visibleLines counts the lines of md that VisibleLines budgets.
func visibleLines(md string) int {
	n, depth := 0, 0
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		opens, closes := strings.Count(t, "<details>"), strings.Count(t, "</details>")
		if depth == 0 && opens > 0 {
			n++
		} else if depth == 0 && t != "" && !strings.HasPrefix(t, "[^") && !strings.HasPrefix(t, "<!--") {
			n++
		}
		depth += opens - closes
		if depth < 0 {
			depth = 0
		}
	}
	return n
}

// openTables opens the regressed workloads' tables, most severe first,
// while the visible part of the fullest rendering stays within
// VisibleLines; the first is always open. It counts the comment with every
// such table closed (parts, whose tables part is tables), then adds the
// tables one by one, and replaces tables' versions with the chosen
// rendering.
func openTables(d *Data, c *verdict.Comparison, parts []*part, tables *part) {
	lines := visibleLines(joinFirst(parts))
	open := 0
	for _, w := range regressedWorkloads(d.Comparison) {
		t := visibleLines(workloadTable(w.Workload, w.cells, c, armsOf(d)) + serverContext(d, w.Workload.Cell))
		if open > 0 && lines+t > VisibleLines {
			break
		}
		open++
		lines += t
	}
	tables.versions = tablesPart(d, c, open).versions
}

// joinFirst joins the fullest versions of the parts.
func joinFirst(parts []*part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.versions[0])
	}
	return b.String()
}
