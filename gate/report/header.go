package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/verdict"
)

// countsLine counts the workloads and gated cells by outcome, the second
// line of the markdown and the terminal reports alike.
func countsLine(c *verdict.Comparison) string {
	return fmt.Sprintf("%d workload(s), %d gated metrics: %d regressed, %d undecided, %d improved, %d passed",
		len(c.Workloads), c.Family, c.Regressions, c.Inconclusives, c.Improvements, c.Passes)
}

// headerLine is the line under the headline that says what was compared,
// as the tools reviewers know do: "base `1a2b3c4` (main, 2 days before
// this run) → head `def5678` · profile `p` · runner `r` · 5 vs 5 trials".
// Unknown parts are left out; the base is named only when every compared
// workload shares one (else the list's Baseline column names each).
func headerLine(d *Data, md bool) string {
	code, esc := Code, Escape
	if !md {
		code, esc = plain, plain
	}
	var parts []string
	head := ""
	if d.Head.Commit != "" {
		head = "head " + code(shortCommit(d.Head.Commit))
		if ref := shortRef(d.Head.Ref); ref != "" {
			head += " (" + esc(ref) + ")"
		}
	}
	// An A/B experiment has no stored baseline: its arms are named in the
	// A/B section, the head alone here.
	switch base := baseRevision(d, code, esc); {
	case paired(d):
		if head != "" {
			parts = append(parts, head)
		}
	case base != "" && head != "":
		parts = append(parts, "base "+base+" → "+head)
	case base != "":
		parts = append(parts, "base "+base)
	case head != "":
		parts = append(parts, "base (commit not recorded) → "+head)
	}
	parts = append(parts, "profile "+code(orDefault(d.Profile, "default")))
	if d.Runner != "" {
		parts = append(parts, "runner "+code(d.Runner))
	}
	if t := trialCounts(d); t != "" {
		parts = append(parts, t)
	}
	return strings.Join(parts, " · ")
}

// baseRevision is the shared baseline's commit with its branch and age
// when the candidate ran: "`1a2b3c4` (main, 2 days before this run)"; ""
// when the workloads' baselines differ or none is recorded.
func baseRevision(d *Data, code, esc func(string) string) string {
	if paired(d) {
		return ""
	}
	var commit, ref string
	var promoted, started time.Time
	n := 0
	for _, w := range d.Comparison.Workloads {
		b := d.Baselines[w.Cell]
		if b == nil || b.Provenance == nil || b.Provenance.GitSHA == "" {
			continue
		}
		if n > 0 && b.Provenance.GitSHA != commit {
			return ""
		}
		commit, ref, promoted = b.Provenance.GitSHA, b.Provenance.GitRef, b.Provenance.PromotedAt
		if c := d.Candidates[w.Cell]; c != nil && !c.StartedAt.IsZero() {
			started = c.StartedAt
		}
		n++
	}
	if n == 0 {
		return ""
	}
	var in []string
	if r := shortRef(ref); r != "" {
		in = append(in, esc(r))
	}
	if !promoted.IsZero() && !started.IsZero() {
		in = append(in, Age(started.Sub(promoted))+" before this run")
	}
	s := code(shortCommit(commit))
	if len(in) > 0 {
		s += " (" + strings.Join(in, ", ") + ")"
	}
	return s
}

// shortRef is a ref as people say it: "refs/heads/main" is "main".
func shortRef(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/", "refs/"} {
		if strings.HasPrefix(ref, p) {
			return strings.TrimPrefix(ref, p)
		}
	}
	return ref
}

// trialCounts is the compared workloads' counts: "5 vs 5 trials" when
// they agree, else their ranges ("3–5 vs 5 trials").
func trialCounts(d *Data) string {
	n := armsOf(d)
	byW := gatedByWorkload(d.Comparison)
	var as, bs []int
	unit := ""
	for _, w := range d.Comparison.Workloads {
		if w.Status != verdict.Compared {
			continue
		}
		a, b, u := n.over(w, byW[w.Cell])
		as, bs, unit = append(as, a), append(bs, b), u
	}
	if len(as) == 0 {
		return ""
	}
	span := func(v []int) string {
		sort.Ints(v)
		if v[0] == v[len(v)-1] {
			return fmt.Sprint(v[0])
		}
		return fmt.Sprintf("%d–%d", v[0], v[len(v)-1])
	}
	return fmt.Sprintf("%s vs %s %s", span(as), span(bs), unit)
}

// shownPath is how a comment names a file: relative to the output
// directory (the artifact) when it is under it, a relative path as given,
// and any other absolute path by its file name only. The runner's disk
// layout means nothing on GitHub and may name users or workspaces.
func shownPath(d *Data, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") {
		return filepath.ToSlash(p)
	}
	if d.OutDir != "" {
		if rel, err := filepath.Rel(d.OutDir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(p)
}

// notComparedLines says, above the fold, which workloads could not be
// compared when that blocks the gate: one line each with the reason and
// both arms' invalid trials ("baseline: 3 of 5 invalid (client saturated:
// dispatch lag p99 26.5 ms > 10 ms); candidate: none"). At most 3 lines;
// the table below the tables lists every one.
func notComparedLines(d *Data) string {
	c := d.Comparison
	var b strings.Builder
	n := 0
	for _, w := range c.Workloads {
		if w.Status == verdict.Compared || w.Allowed {
			continue
		}
		if n == 3 {
			b.WriteString("> … more in *Not compared* below.\n")
			break
		}
		if n == 0 {
			b.WriteString("\n> [!WARNING]\n")
		}
		n++
		fmt.Fprintf(&b, "> 🚫 %s not compared (%s): %s\n", Code(w.Cell), w.Status, notComparedWhy(d, w, true))
	}
	return b.String()
}

// notComparedWhy is why a workload was not compared, in one line: its
// message and both arms' invalid trials; for too many invalid trials only
// the latter, which say it per arm (the message would repeat them).
func notComparedWhy(d *Data, w verdict.Workload, md bool) string {
	if w.Status == verdict.NoValidTrials && len(w.Excluded) > 0 {
		return "too many invalid trials; " + strings.TrimPrefix(invalidBySide(d, w, md), "; ")
	}
	msg := Truncate(w.Message, 200)
	if md {
		msg = Escape(msg)
	} else {
		msg = plain(msg)
	}
	return msg + invalidBySide(d, w, md)
}

// invalidBySide is both arms' invalid trials of a workload with the first
// reason of each: "; baseline: 3 invalid (client saturated: ...), candidate:
// none"; "" when neither arm has one.
func invalidBySide(d *Data, w verdict.Workload, md bool) string {
	if len(w.Excluded) == 0 {
		return ""
	}
	n := armsOf(d)
	var parts []string
	for _, side := range []string{"baseline", "candidate"} {
		count, reason := 0, ""
		for _, e := range w.Excluded {
			if e.Arm == side {
				count++
				if reason == "" {
					reason = e.Reason
				}
			}
		}
		if count == 0 {
			parts = append(parts, n.side(side)+": none invalid")
			continue
		}
		r := Truncate(reason, 120)
		if md {
			r = Escape(r)
		} else {
			r = plain(r)
		}
		parts = append(parts, fmt.Sprintf("%s: %d invalid (%s)", n.side(side), count, r))
	}
	return "; " + strings.Join(parts, ", ")
}
