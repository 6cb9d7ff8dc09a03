package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The rules of issue 23 ("a verdict a reviewer understands in five
// seconds"), each checked over every stored comparison fixture.

// allFixtures are the names of every testdata/*.fixture.json.
func allFixtures(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.fixture.json"))
	if err != nil || len(paths) < 6 {
		t.Fatalf("fixtures: %v %v", paths, err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".fixture.json"))
	}
	return out
}

func markdownOf(t *testing.T, d *Data, limit int) string {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, d, limit); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func textOf(t *testing.T, d *Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// aboveFold is the comment down to its first collapsed section.
func aboveFold(md string) string {
	if i := strings.Index(md, "<details>"); i >= 0 {
		return md[:i]
	}
	return md
}

// TestHeadlineIsRowOne: one ordering everywhere. A regression's headline
// names the list's row 1 (the most severe regressed cell), in the comment
// and the terminal; an undecided comparison's headline counts the
// undecided metrics and names the undecided list's row 1, never by an
// improvement (a change in the better direction is not printed there).
func TestHeadlineIsRowOne(t *testing.T) {
	for _, name := range allFixtures(t) {
		d := loadFixture(t, name)
		c := d.Comparison
		reg, inc, _ := listedCells(c)
		md, txt := markdownOf(t, d, CommentLimit), textOf(t, d)
		first, _, _ := strings.Cut(md, "\n")
		tfirst, _, _ := strings.Cut(txt, "\n")
		switch c.Verdict {
		case verdict.Regression:
			top := reg[0].cell
			want := Escape(top.Workload) + ": " + Escape(top.Label) + " " + Change(top)
			if !strings.Contains(first, "Regression in "+want) {
				t.Errorf("%s: headline %q does not name row 1 (%s)", name, first, want)
			}
			if !strings.Contains(tfirst, top.Workload+": "+top.Label+" "+Change(top)) {
				t.Errorf("%s: terminal headline %q does not name row 1", name, tfirst)
			}
			rows := listRows(t, md)
			if len(rows) == 0 || rows[0].workload != Escape(top.Workload) || rows[0].metric != Escape(top.Label) {
				t.Errorf("%s: list row 1 %+v is not the headline cell %s %s", name, rows, top.Workload, top.Label)
			}
		case verdict.Inconclusive:
			if !strings.Contains(first, strconv.Itoa(c.Inconclusives)+" of "+strconv.Itoa(c.Family)+" gated metrics undecided") {
				t.Errorf("%s: headline %q does not count the undecided metrics", name, first)
			}
			top := inc[0].cell
			if !strings.Contains(first, Escape(top.Workload)+": "+Escape(top.Label)) {
				t.Errorf("%s: headline %q does not name undecided row 1 %s %s", name, first, top.Workload, top.Label)
			}
			for _, l := range inc {
				if l.cell.Worse < 0 && strings.Contains(first, Escape(l.cell.Label)+" "+Change(l.cell)) {
					t.Errorf("%s: headline %q names an improvement", name, first)
				}
			}
			if u := undecidedRows(md); len(u) == 0 || u[0][0] != Escape(top.Workload) || u[0][1] != Escape(top.Label) {
				t.Errorf("%s: undecided row 1 is not the headline's cell", name)
			}
		}
	}
}

// TestShownIntervalsAgreeWithOutcomes: no shown interval contradicts its
// outcome. For every fixture, every row of every table in the comment and
// the terminal (list, undecided table, per-workload tables): an interval
// wholly past the tolerance on the worse side is a regression, wholly
// past it on the better side an improvement, or the row says why not; a
// pass's interval ends inside the tolerance.
func TestShownIntervalsAgreeWithOutcomes(t *testing.T) {
	rowRE := regexp.MustCompile(`^\| (.+?) \| .+? \| .+? \| (\S+ (?:%|pp)) \| (.+?) \| (\S+ (?:%|pp)) \| \S+ (\w+)(.*) \|$`)
	checked := 0
	for _, name := range allFixtures(t) {
		d := loadFixture(t, name)
		byKey := map[[2]string]*verdict.Cell{}
		for i := range d.Comparison.Cells {
			if cell := &d.Comparison.Cells[i]; cell.Gated {
				byKey[[2]string{Escape(cell.Workload), Escape(cell.Label)}] = cell
			}
		}
		// Every tested gated cell carries the interval it was decided on,
		// the paired A/B comparisons' too (gate/ab uses verdict.DecisionFor).
		for key, cell := range byKey {
			if cell.Decision == nil && cell.Baseline.N > 0 && cell.Candidate.N > 0 && cell.Noise.SE > 0 {
				t.Errorf("%s %v: no decision interval", name, key)
			}
		}
		md := strings.ReplaceAll(markdownOf(t, d, 0), "\u00a0", " ")
		w := ""
		for _, line := range strings.Split(md, "\n") {
			if m := tableHeadRE.FindStringSubmatch(line); m != nil {
				w = m[1]
				continue
			}
			m := rowRE.FindStringSubmatch(line)
			if m == nil || w == "" || m[1] == "Metric" {
				continue
			}
			cell := byKey[[2]string{w, m[1]}]
			if cell == nil {
				continue // an ungated table (all metrics) or a paired detail
			}
			checked++
			lo, hi := parseRange(t, m[3])
			tol := parse(t, m[4])
			worseLo, worseHi := lo, hi
			if cell.Direction == metrics.HigherIsBetter.String() {
				worseLo, worseHi = -hi, -lo
			}
			outcome, remark := verdict.Outcome(m[5]), m[6]
			where := name + " " + w + " " + m[1] + ": " + line
			switch {
			case worseLo > tol && outcome != verdict.Regression && !strings.Contains(remark, "not a regression"):
				t.Errorf("%s: interval wholly past the tolerance, outcome %s, no reason given", where, outcome)
			case worseHi < -tol && outcome != verdict.Improvement && !strings.Contains(remark, "not an improvement"):
				t.Errorf("%s: interval wholly past minus the tolerance, outcome %s, no reason given", where, outcome)
			case outcome == verdict.Pass && worseHi > tol:
				t.Errorf("%s: a pass whose interval ends past the tolerance", where)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d table rows checked: the parser no longer reads the tables", checked)
	}
}

// parseRange reads "-1.3 to +1.6 %" or "-0.04 to +0.04 pp".
func parseRange(t *testing.T, s string) (lo, hi float64) {
	t.Helper()
	a, b, ok := strings.Cut(s, " to ")
	if !ok {
		t.Fatalf("not a range: %q", s)
	}
	return parse(t, a), parse(t, b)
}

// TestNotesGroupedWithActions: at most MaxNotes notes in the comment and
// the terminal, each ending with the action that removes it, every warning
// of every fixture in a known kind (none left as its raw text), and no
// wall of footnotes or numbered warnings.
func TestNotesGroupedWithActions(t *testing.T) {
	for _, name := range allFixtures(t) {
		d := loadFixture(t, name)
		for _, n := range notesOf(d) {
			if strings.HasPrefix(n.kind, "other:") {
				t.Errorf("%s: warning of no known kind: %q", name, n.texts[0])
			}
		}
		md, txt := markdownOf(t, d, CommentLimit), textOf(t, d)
		_, notes, _ := strings.Cut(md, "\n**Notes**\n\n")
		notes, _, _ = strings.Cut(notes, "\n\n")
		var bullets []string
		for _, l := range strings.Split(notes, "\n") {
			if strings.HasPrefix(l, "- ") {
				bullets = append(bullets, l)
			}
		}
		if len(bullets) > MaxNotes {
			t.Errorf("%s: %d notes in the comment, at most %d", name, len(bullets), MaxNotes)
		}
		for _, b := range bullets {
			if !strings.Contains(b, " → ") {
				t.Errorf("%s: note without an action: %s", name, b)
			}
		}
		if strings.Contains(md, "[^") {
			t.Errorf("%s: the comment still has footnotes", name)
		}
		_, tnotes, _ := strings.Cut(txt, "\nNotes:\n")
		if n := strings.Count(tnotes, "\n  - "); n+1 > MaxNotes+1 || strings.Contains(txt, "Warnings:") {
			t.Errorf("%s: terminal notes %d (at most %d) or numbered warnings left", name, n, MaxNotes)
		}
	}
}

// TestNoMDCAboveHundredAsNumber: a detectable change above 100 % is said
// in words, never printed as a number, in the notes and the noise table.
func TestNoMDCAboveHundredAsNumber(t *testing.T) {
	num := regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?) ?%`)
	big := func(s string) string {
		for _, m := range num.FindAllStringSubmatch(s, -1) {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64); err == nil && v > 100 {
				return m[0]
			}
		}
		return ""
	}
	for _, name := range allFixtures(t) {
		d := loadFixture(t, name)
		for i := range d.Comparison.Cells {
			d.Comparison.Cells[i].MDE *= 50 // every detectable change far above 100 %
		}
		for _, out := range []string{markdownOf(t, d, 0), textOf(t, d)} {
			for _, n := range notesOf(d) {
				if n.kind == "noise" && big(n.detail) != "" {
					t.Errorf("%s: noise note prints a detectable change above 100 %%: %s", name, n.detail)
				}
			}
			if _, noise, ok := strings.Cut(out, "Noise and minimum detectable change"); ok {
				noise, _, _ = strings.Cut(noise, "Noise prior per metric")
				if m := big(noise); m != "" {
					t.Errorf("%s: noise table prints %s", name, m)
				}
			}
		}
	}
}

// TestUndecidedAboveFold: an undecided comparison (inconclusive, A/A)
// shows above its first collapsed section the verdict, the table of
// undecided metrics with what decides each, and stays within the first
// screen's line budget.
func TestUndecidedAboveFold(t *testing.T) {
	for _, name := range []string{"inconclusive", "aa", "ab-undecided"} {
		d := loadFixture(t, name)
		fold := aboveFold(markdownOf(t, d, CommentLimit))
		if !strings.Contains(fold, "| Decides it |") || len(undecidedRows(fold)) == 0 {
			t.Errorf("%s: no table of undecided metrics above the fold:\n%s", name, fold)
		}
		if n := visibleLines(fold); n > FirstScreenLines {
			t.Errorf("%s: %d visible lines above the fold, first screen %d", name, n, FirstScreenLines)
		}
	}
}

// TestNotComparedAboveFold: a workload that could not be compared, and
// so decides the verdict, is said above the fold with both arms' invalid
// trials and their reasons, in the comment and the terminal.
func TestNotComparedAboveFold(t *testing.T) {
	d := loadFixture(t, "saturated")
	fold := aboveFold(markdownOf(t, d, CommentLimit))
	for _, want := range []string{"`poisson-r20` not compared", "baseline: 3 invalid (client saturated: dispatch lag p99 26.5 ms &gt; 10 ms)", "candidate: 1 invalid (client saturated"} {
		if !strings.Contains(fold, want) {
			t.Errorf("above the fold lacks %q:\n%s", want, fold)
		}
	}
	txt := textOf(t, d)
	if !strings.Contains(txt, "baseline: 3 invalid (client saturated") || !strings.Contains(txt, "candidate: 1 invalid") {
		t.Errorf("terminal lacks both arms' invalid trials:\n%s", txt)
	}
}

// TestNoAbsolutePaths: a comment names files relative to the output
// directory (the artifact), never by the runner's absolute paths; and no
// golden comment holds one.
func TestNoAbsolutePaths(t *testing.T) {
	abs := regexp.MustCompile(`(?:^|[\s(\x60"'])(?:/tmp/|/home/|/root/|/Users/|/var/|/github/|/runner/|[A-Z]:\\)`)
	for _, name := range allFixtures(t) {
		d := loadFixture(t, name)
		d.OutDir = "/home/runner/work/repo/perfgate-out"
		for cell := range d.ResultPaths {
			d.ResultPaths[cell] = filepath.Join(d.OutDir, "results", cell+".json")
			d.BaselinePaths[cell] = "/tmp/runner-checkout/baselines/" + cell + ".json"
		}
		d.FullReport = filepath.Join(d.OutDir, "report.md")
		for _, limit := range []int{0, CommentLimit, 3000} {
			if m := abs.FindString(markdownOf(t, d, limit)); m != "" {
				t.Errorf("%s (limit %d): an absolute path in the comment: %q", name, limit, m)
			}
		}
	}
	golds, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, g := range golds {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if m := abs.FindString(string(b)); m != "" {
			t.Errorf("%s holds an absolute path: %q", g, m)
		}
	}
}

func TestShownPath(t *testing.T) {
	d := &Data{OutDir: "/w/out"}
	for _, tt := range []struct{ in, want string }{
		{"/w/out/results/a.json", "results/a.json"},
		{"/elsewhere/baselines/p/a.json", "a.json"},
		{"baselines/p/a.json", "baselines/p/a.json"},
		{"/w/outside.json", "outside.json"},
		{"", ""},
	} {
		if got := shownPath(d, tt.in); got != tt.want {
			t.Errorf("shownPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHeaderLine: base and head commits, profile, runner and trials, as
// reviewers read a comparison elsewhere.
func TestHeaderLine(t *testing.T) {
	d := loadFixture(t, "regression")
	want := "base `1a2b3c4` (main, 2 days before this run) → head `def5678` (pull/42/merge) · profile `h100-qwen3-8b` · runner `gpu-h100-3` · 5 vs 5 trials"
	if got := headerLine(d, true); got != want {
		t.Errorf("header\n got %s\nwant %s", got, want)
	}
	d.Head = Revision{}
	if got := headerLine(d, false); !strings.HasPrefix(got, "base 1a2b3c4 (main, 2 days before this run) · profile h100-qwen3-8b") {
		t.Errorf("header without head: %s", got)
	}
}

func TestLevelText(t *testing.T) {
	for _, tt := range []struct {
		l    float64
		want string
	}{{0.8, "80 %"}, {0.9996, "99.96 %"}, {0.99, "99 %"}, {0.999, "99.9 %"}, {0.99999, "99.999 %"}} {
		if got := levelText(tt.l); got != tt.want {
			t.Errorf("levelText(%v) = %q, want %q", tt.l, got, tt.want)
		}
	}
}
