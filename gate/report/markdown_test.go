package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff):\n%s", name, firstDiff(string(got), string(want)))
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
	return ""
}

var scenarios = []string{"regression", "pass", "invalid", "inconclusive", "aa", "saturated"}

// TestRenderGolden holds every form Render gives against its golden
// file: the comment and the terminal text of each scenario, and the
// comparison JSON of the regression.
func TestRenderGolden(t *testing.T) {
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			r, err := Render(loadFixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".md", r.Comment)
			golden(t, name+".txt", r.Text)
			if name == "regression" {
				golden(t, "regression.comparison.json", r.JSON)
			}
			if !bytes.HasPrefix(r.Full, []byte(strings.SplitAfter(string(r.Comment), "\n")[0])) {
				t.Errorf("the full report and the comment open differently:\n%.200s\n%.200s", r.Full, r.Comment)
			}
		})
	}
}

func TestMarkdownFirstLine(t *testing.T) {
	tests := []struct {
		scenario string
		runError string
		want     string
	}{
		{"regression", "", "### ❌ Regression in cx8-4000-1000-c16: TPOT p"},
		{"pass", "", "### ✅ Pass: no regression in "},
		{"invalid", "", "### 🚫 Invalid: 2 workload(s) not compared: changed (workload-changed), new-workload (missing-baseline)"},
		{"inconclusive", "", "### ⚠️ Inconclusive: 9 of 9 gated metrics undecided within the trial budget; closest to failing: rag-32k: TTFT p99 +"},
		{"pass", "server died after 3 trials", "### 🚫 Run failed: server died after 3 trials (partial results, not a pass)"},
	}
	for _, tt := range tests {
		d := loadFixture(t, tt.scenario)
		d.RunError = tt.runError
		var b bytes.Buffer
		if err := Markdown(&b, d, CommentLimit); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		if !strings.HasPrefix(first, tt.want) {
			t.Errorf("%s: first line %q, want prefix %q", tt.scenario, first, tt.want)
		}
		if !strings.HasSuffix(b.String(), "\n<!-- perfgate:h100-qwen3-8b -->\n") {
			t.Errorf("%s: does not end with the marker", tt.scenario)
		}
	}
}

// TestMarkdownEscapesUntrusted checks that hostile strings from files and
// servers in the regression fixture (a workload named "short|<chat>", an
// error body with "</details>", a code fence and a mention) cannot change
// the comment's structure.
func TestMarkdownEscapesUntrusted(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, loadFixture(t, "regression"), 0); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"short|<chat>", "</details>\n# boom", "`rm -rf`", "@team", "[x](http://evil)", "<EOF>"} {
		if strings.Contains(md, bad) {
			t.Errorf("unescaped %q in the comment", bad)
		}
	}
	if got, want := strings.Count(md, "<details>"), strings.Count(md, "</details>"); got != want {
		t.Errorf("%d <details> but %d </details>", got, want)
	}
	if !strings.Contains(md, `short\|&lt;chat&gt;`) {
		t.Error("escaped workload name missing")
	}
}

// TestMarkdownSizeLimit renders 200 workloads, all regressed with long
// names and warnings, and checks the comment stays under GitHub's limit
// with the headline and a verdict table intact.
func TestMarkdownSizeLimit(t *testing.T) {
	for _, regressed := range []int{0, 3, 200} {
		t.Run(fmt.Sprintf("%d-regressed", regressed), func(t *testing.T) {
			d := manyWorkloads(200, regressed)
			var full, b bytes.Buffer
			if err := Markdown(&full, d, 0); err != nil {
				t.Fatal(err)
			}
			if err := Markdown(&b, d, CommentLimit); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			if n := runeLen(md); n > CommentLimit {
				t.Fatalf("comment is %d characters, limit %d", n, CommentLimit)
			}
			if runeLen(full.String()) <= CommentLimit {
				t.Fatalf("the untrimmed report (%d) fits anyway: the test does not exercise trimming", runeLen(full.String()))
			}
			first, _, _ := strings.Cut(md, "\n")
			wantHead, _, _ := strings.Cut(full.String(), "\n")
			if first != wantHead {
				t.Errorf("headline changed by trimming: %q vs %q", first, wantHead)
			}
			if !strings.Contains(md, "| Metric | Baseline | Candidate |") && !strings.Contains(md, "| Workload | Trials |") {
				t.Error("no verdict table left")
			}
			if !strings.Contains(md, "Shortened to fit") || !strings.Contains(md, "perfgate-out/report.md") {
				t.Error("no note saying what was trimmed and where the full report is")
			}
			if !strings.HasSuffix(md, "<!-- perfgate:h100-qwen3-8b -->\n") {
				t.Error("marker lost")
			}
			if strings.Count(md, "<details>") != strings.Count(md, "</details>") || strings.Count(md, "```")%2 != 0 {
				t.Error("trimming left a block open")
			}
			if regressed == 3 {
				// Every regressed workload keeps its full table.
				for i := 0; i < 3; i++ {
					if !strings.Contains(md, fmt.Sprintf("#### ❌ %s", wlName(i))) {
						t.Errorf("regressed workload %d lost its table", i)
					}
				}
			}
		})
	}
}

func wlName(i int) string {
	return Escape(fmt.Sprintf("workload-%03d-with-a-rather-long-descriptive-name-for-the-sweep_cell@c16", i))
}

// manyWorkloads builds a comparison of n workloads, the first regressed of
// them with a TPOT regression, each with the nine default gated metrics
// and twenty ungated ones.
func manyWorkloads(n, regressed int) *Data {
	c := &verdict.Comparison{Schema: verdict.SchemaID, Alpha: 0.01, LookAlpha: 0.01, Look: verdict.Look{Index: 1, Max: 1}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("workload-%03d-with-a-rather-long-descriptive-name-for-the-sweep_cell@c16", i)
		c.Workloads = append(c.Workloads, verdict.Workload{Cell: name, Status: verdict.Compared, BaselineTrials: 5, CandidateTrials: 5,
			Warnings: []string{fmt.Sprintf("baseline of %s is 31 days old", name)}})
		for j, id := range append(append([]string{}, verdict.DefaultGated...), "ttft_ms.mean", "ttft_ms.p90", "ttft_ms.p95", "tpot_ms.mean", "itl_ms.p50", "itl_ms.p99",
			"e2el_ms.mean", "e2el_ms.p90", "qpm", "tpm", "total_token_throughput", "itl_ms.mean", "itl_ms.p90", "itl_ms.p95",
			"tpot_ms.p90", "tpot_ms.p95", "e2el_ms.p95", "ttft_ms.median", "tpot_ms.median", "e2el_ms.median") {
			cell := verdict.Cell{Workload: name, Metric: id, Label: id, Unit: "ms", Direction: "lower-is-better", Gated: j < len(verdict.DefaultGated),
				Baseline: verdict.Arm{N: 5, Centre: 21.5, CV: 0.02}, Candidate: verdict.Arm{N: 5, Centre: 21.6, CV: 0.02},
				Change: 0.4, Worse: 0.4, CILow: -1.5, CIHigh: 2.3, CILevel: 0.9, Tolerance: 3, PValue: 0.4, PAdjusted: 1, MDE: 2.5, Outcome: verdict.Pass,
				Noise: verdict.CellNoise{Source: "pooled", DF: 80}}
			if i < regressed && id == "tpot_ms.p50" {
				cell.Change, cell.Worse, cell.CILow, cell.CIHigh, cell.Outcome, cell.PAdjusted = 7.9, 7.9, 6.1, 9.8, verdict.Regression, 0.0001
				cell.Warnings = []string{fmt.Sprintf("minimum detectable change on %s exceeds the tolerance", name)}
			}
			c.Cells = append(c.Cells, cell)
			if cell.Gated {
				c.Family++
			}
		}
	}
	if regressed > 0 {
		c.Verdict, c.Regressions = verdict.Regression, regressed
		for i := range c.Cells {
			if c.Cells[i].Outcome == verdict.Regression {
				h := c.Cells[i]
				c.Headline = &h
				break
			}
		}
	} else {
		c.Verdict = verdict.Pass
	}
	c.Passes = c.Family - regressed
	return &Data{Comparison: c, Profile: "h100-qwen3-8b", FullReport: "perfgate-out/report.md"}
}
