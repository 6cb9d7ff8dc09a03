package report

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/verdict"
)

func TestManyWorkloadsGolden(t *testing.T) {
	golden(t, "many.md", render(t, twelveWorkloads(false), CommentLimit))
	golden(t, "many-all-regressed.md", render(t, twelveWorkloads(true), CommentLimit))
}

func render(t *testing.T, d *Data, limit int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, d, limit); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestVisibleBudget: a 12-workload regression stays within VisibleLines
// above its collapsed details, whether five or all twelve workloads
// regressed, and still lists every regressed metric and opens the most
// severe workload's table.
func TestVisibleBudget(t *testing.T) {
	for _, all := range []bool{false, true} {
		d := twelveWorkloads(all)
		md := string(render(t, d, CommentLimit))
		if n := visibleLines(md); n > VisibleLines {
			t.Errorf("all regressed %v: %d visible lines, budget %d", all, n, VisibleLines)
		}
		rows, undecided := listRows(t, md), undecidedRows(md)
		if len(rows) != d.Comparison.Regressions || len(undecided) != d.Comparison.Inconclusives {
			t.Errorf("all regressed %v: %d regressed and %d undecided rows, want %d and %d", all, len(rows), len(undecided), d.Comparison.Regressions, d.Comparison.Inconclusives)
		}
		top := regressedWorkloads(d.Comparison)[0].Workload.Cell
		if i := strings.Index(md, "#### ❌ "+top); i < 0 || strings.Count(md[:i], "<details>") != strings.Count(md[:i], "</details>") {
			t.Errorf("all regressed %v: the most severe workload %s's table is not open", all, top)
		}
	}
}

func TestVisibleLines(t *testing.T) {
	md := "### head\n\ntext\n\n| a |\n|---|\n<details><summary>s</summary>\n\nhidden\n\n<details><summary>inner</summary>\nx\n</details>\n</details>\n\n[^1]: note\n\n<!-- perfgate:x -->\n"
	if n := visibleLines(md); n != 5 {
		t.Errorf("visibleLines = %d, want 5 (head, text, two table lines, one summary)", n)
	}
}

// listRow is one parsed row of the list at the top of the comment.
type listRow struct {
	workload, metric, change, interval, worse, bar string
}

var listRowRE = regexp.MustCompile("^\\| (.+?) \\| (.+?) \\| (\\S+ \\S+) \\| (\\S+ (?:%|pp)) \\| (?:`([▏▎▍▌▋▊▉█]+)` )?(\\S+ (?:%|pp)) \\|")

// listRows parses the regressed list's rows out of rendered markdown (no-break
// spaces read as spaces).
func listRows(t *testing.T, md string) []listRow {
	t.Helper()
	var out []listRow
	// Only the list: from its heading to the undecided table, the legend
	// or the first workload's table.
	if i := strings.Index(md, " regressed metric(s)**"); i >= 0 {
		md = md[i:]
	} else {
		return nil
	}
	for _, end := range []string{" undecided metric(s)**", "\nBars:", "\n#### "} {
		if i := strings.Index(md, end); i >= 0 {
			md = md[:i]
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(md, "\u00a0", " "), "\n") {
		if m := listRowRE.FindStringSubmatch(line); m != nil {
			out = append(out, listRow{workload: m[1], metric: m[2], change: m[3], bar: m[5], worse: m[6]})
		}
	}
	return out
}

// undecidedRowRE is a row of the undecided table: workload, metric,
// change (interval), tolerance, what decides it.
var undecidedRowRE = regexp.MustCompile(`^\| (.+?) \| (.+?) \| (\S+ \S+) \((.+?)\) \| (\S+ (?:%|pp)) \| ([^|]+) \|$`)

// undecidedRows parses the undecided table's rows: change, interval and
// tolerance as printed, and what decides each.
func undecidedRows(md string) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.ReplaceAll(md, "\u00a0", " "), "\n") {
		if m := undecidedRowRE.FindStringSubmatch(line); m != nil {
			out = append(out, m[1:])
		}
	}
	return out
}

var (
	tableHeadRE = regexp.MustCompile(`^#### \S+ (.+?) — `)
	tableRowRE  = regexp.MustCompile(`^\| (.+?) \| .+? \| .+? \| (\S+ (?:%|pp)) \| (.+?) \| .+? \| \S+ \w+`)
)

// tableChanges parses every per-workload table: change and interval by
// workload and metric label, as the tables print them.
func tableChanges(md string) map[[2]string][2]string {
	out := map[[2]string][2]string{}
	w := ""
	for _, line := range strings.Split(strings.ReplaceAll(md, "\u00a0", " "), "\n") {
		if m := tableHeadRE.FindStringSubmatch(line); m != nil {
			w = m[1]
			continue
		}
		if m := tableRowRE.FindStringSubmatch(line); m != nil && w != "" && m[1] != "Metric" {
			out[[2]string{w, m[1]}] = [2]string{m[2], m[3]}
		}
	}
	return out
}

// flip negates a formatted change ("-11.8 %" -> "+11.8 %"), as the bar
// column does for metrics where higher is better.
func flip(s string) string {
	switch s[0] {
	case '-':
		return "+" + s[1:]
	case '+':
		return "-" + s[1:]
	}
	return s
}

// TestChartMatchesTable reads both the bar column and the per-workload
// tables from the rendered comments and checks that every number the
// chart shows is the table's: the change and interval as printed, the
// worse-by value equal to the change (sign-flipped where higher is
// better, exactly), every bar's length proportional to its value on one
// scale from zero, at most MaxBars bars, and none for cells in points.
func TestChartMatchesTable(t *testing.T) {
	for _, d := range []*Data{twelveWorkloads(false), twelveWorkloads(true), loadFixture(t, "regression"), loadFixture(t, "inconclusive")} {
		md := string(render(t, d, 0))
		rows := listRows(t, md)
		for _, u := range undecidedRows(md) {
			rows = append(rows, listRow{workload: u[0], metric: u[1], change: u[2], interval: u[3]})
		}
		if len(rows) == 0 {
			t.Fatal("no list rows parsed")
		}
		tables := tableChanges(md)
		higher := map[string]bool{}
		for _, c := range d.Comparison.Cells {
			higher[Escape(c.Label)] = c.Direction == metrics.HigherIsBetter.String()
		}
		bars, longest := 0, 0.0
		for _, r := range rows {
			if r.bar != "" {
				bars++
				longest = math.Max(longest, parse(t, r.worse))
			}
		}
		if bars > MaxBars {
			t.Errorf("%d bars, at most %d", bars, MaxBars)
		}
		if m := regexp.MustCompile(`the longest (\S+ %)`).FindStringSubmatch(md); bars > 0 && (m == nil || parse(t, m[1]) != longest) {
			t.Errorf("caption %v does not name the longest bar %v", m, longest)
		}
		for _, r := range rows {
			tab, ok := tables[[2]string{r.workload, r.metric}]
			if !ok {
				t.Errorf("list row %s %s has no table row", r.workload, r.metric)
				continue
			}
			if r.change != tab[0] || (r.interval != "" && r.interval != tab[1]) {
				t.Errorf("%s %s: list says %s (%s), table %s (%s)", r.workload, r.metric, r.change, r.interval, tab[0], tab[1])
			}
			if r.worse == "" {
				continue // an undecided row: no worse-by column
			}
			want := tab[0]
			if higher[r.metric] {
				want = flip(tab[0])
			}
			if r.worse != want {
				t.Errorf("%s %s: chart worse by %s, table change %s (higher is better: %v)", r.workload, r.metric, r.worse, tab[0], higher[r.metric])
			}
			if strings.HasSuffix(r.worse, "pp") && r.bar != "" {
				t.Errorf("%s %s: a bar for a cell in points", r.workload, r.metric)
			}
			if r.bar != "" {
				got := eighthsOf(r.bar)
				exact := parse(t, r.worse) / longest * BarWidth * 8
				if math.Abs(float64(got)-exact) > 0.5+0.05*8 { // half an eighth, plus the table's rounding to 0.1
					t.Errorf("%s %s: bar of %d eighths for %s on a scale of %v, want %.1f", r.workload, r.metric, got, r.worse, longest, exact)
				}
			}
		}
	}
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	f := strings.Fields(strings.ReplaceAll(s, "±", ""))
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

// eighthsOf is a bar's length in eighths of a cell.
func eighthsOf(bar string) int {
	n := 0
	for _, r := range bar {
		n += strings.IndexRune(string(eighths), r)/utf8.RuneLen(r) + 1
	}
	return n
}

func TestBar(t *testing.T) {
	tests := []struct {
		v, full float64
		want    string
	}{
		{8.3, 8.3, strings.Repeat("█", BarWidth)},
		{4.15, 8.3, strings.Repeat("█", BarWidth/2)},
		{1, 96, "▏"}, // one eighth exactly
		{0.001, 96, "▏"},
		{0, 5, ""}, // no worse: no bar
		{-3, 5, ""},
		{math.NaN(), 5, ""},
		{3, 0, ""},
		{20, 10, strings.Repeat("█", BarWidth)}, // capped at the scale
		{math.Inf(1), 10, strings.Repeat("█", BarWidth)},
	}
	for _, tt := range tests {
		if got := Bar(tt.v, tt.full); got != tt.want {
			t.Errorf("Bar(%v, %v) = %q, want %q", tt.v, tt.full, got, tt.want)
		}
	}
	if got := Bar(1.5, 8); got != "██▎" { // 1.5/8*96 = 18 eighths = 2 cells + 2 eighths
		t.Errorf("Bar(1.5, 8) = %q, want %q", got, "██▎")
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		in   []float64
		want string
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, "▁▂▃▄▅▆▇█"},
		{[]float64{21.4, 21.4, 21.4}, "▄▄▄"},
		{[]float64{10, 10, 20}, "▁▁█"},
		{[]float64{1, math.NaN(), 2}, "▁ █"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := Sparkline(tt.in); got != tt.want {
			t.Errorf("Sparkline(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCollapsedSummaryEscapes: an undecided workload's name from a file
// goes into a <summary>, where it must not close the section or mention
// anyone.
func TestCollapsedSummaryEscapes(t *testing.T) {
	d := twelveWorkloads(false)
	for i := range d.Comparison.Workloads {
		if d.Comparison.Workloads[i].Cell == "rag-32k-c4" {
			d.Comparison.Workloads[i].Cell = "rag</summary></details>@team"
		}
	}
	for i := range d.Comparison.Cells {
		if d.Comparison.Cells[i].Workload == "rag-32k-c4" {
			d.Comparison.Cells[i].Workload = "rag</summary></details>@team"
		}
	}
	md := string(render(t, d, 0))
	if strings.Contains(md, "</summary></details>@") || strings.Contains(md, "@team") {
		t.Error("hostile workload name unescaped")
	}
	if strings.Count(md, "<details>") != strings.Count(md, "</details>") || strings.Count(md, "<summary>") != strings.Count(md, "</summary>") {
		t.Error("a section is left open or closed early")
	}
	if !strings.Contains(md, "<summary>⚠️ rag&#60;/summary&#62;&#60;/details&#62;&#64;team: inconclusive") {
		t.Error("the undecided workload's summary is missing")
	}
}

func TestTrimNote(t *testing.T) {
	tests := []struct{ path, artifact, want string }{
		{"perfgate-out/report.md", "", "the untrimmed report is `perfgate-out/report.md` in the run's output directory."},
		{"perfgate-out/report.md", "perfgate-h100", "the untrimmed report is `perfgate-out/report.md` in artifact `perfgate-h100` (linked below)."},
		{"", "", "the untrimmed report is report.md in the run's output directory."},
	}
	for _, tt := range tests {
		got := defaultTrimmedNote(tt.path, tt.artifact)([]string{"all metrics"})
		if !strings.Contains(got, "(all metrics trimmed)") || !strings.HasSuffix(got, tt.want+"\n") {
			t.Errorf("note(%q, %q) = %q, want suffix %q", tt.path, tt.artifact, got, tt.want)
		}
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute: "5 min", 3 * time.Hour: "3 h", 47 * time.Hour: "47 h", 71 * time.Hour: "2 days", -time.Hour: "newer than the run",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestTrendLastRuns: the trend shows at most Data.Trend promoted runs
// (the newest), then the candidate, and says when there is no history.
func TestTrendLastRuns(t *testing.T) {
	d := twelveWorkloads(false)
	d.Trend = 3
	var cell *verdict.Cell
	for i := range d.Comparison.Cells {
		if c := &d.Comparison.Cells[i]; c.Workload == "chat-1k-c16" && c.Metric == "tpot_ms.p50" {
			cell = c
		}
	}
	runs := d.History["chat-1k-c16"]
	want := "`" + Sparkline([]float64{runs[5].Centre["tpot_ms.p50"], runs[6].Centre["tpot_ms.p50"], runs[7].Centre["tpot_ms.p50"], cell.Candidate.Centre}) + "` "
	if got := trendOf(d, cell); !strings.HasPrefix(got, want) {
		t.Errorf("trend %q, want prefix %q", got, want)
	}
	delete(d.History, "chat-1k-c16")
	if got := trendOf(d, cell); got != "no history" {
		t.Errorf("trend without history %q", got)
	}
}
