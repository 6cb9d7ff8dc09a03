package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// compareTestResult is a result of cell with n trials of the default gated
// metrics; tpot scales tpot_ms.p50 (1.0: unchanged). The trial noise is a
// fixed ±0.5 % pattern, so outcomes are certain.
func compareTestResult(cell string, n int, tpot float64) *result.Result {
	r := &result.Result{
		Schema:      result.Schema,
		Tool:        result.Tool{Name: "perfgate", Version: "test"},
		Workload:    result.Workload{Name: cell, Cell: cell, Hash: "hash-" + cell},
		Server:      result.Server{URL: "http://127.0.0.1:1", Model: "m"},
		Fingerprint: map[string]string{"gpu.name": "sim", "gpu.count": "1", "server.model": "m"},
		StartedAt:   time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Complete:    true,
	}
	base := map[string]float64{
		"ttft_ms.p50": 40, "ttft_ms.p99": 120, "tpot_ms.p50": 12, "tpot_ms.p99": 30,
		"e2el_ms.p50": 1500, "e2el_ms.p99": 3000, "output_throughput": 2500, "request_throughput": 9,
	}
	for i := 0; i < n; i++ {
		wiggle := 1 + 0.005*math.Sin(float64(3*i+len(cell)))
		v := map[string]float64{"success_rate": 1}
		for id, x := range base {
			v[id] = x * wiggle
		}
		v["tpot_ms.p50"] *= tpot
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: v})
	}
	return r
}

func writeResult(t *testing.T, path string, r *result.Result) string {
	t.Helper()
	if err := result.Write(path, r); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(args ...string) (ExitCode, string, string) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Streams{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestCompareExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	writeResult(t, filepath.Join(base, "a.json"), compareTestResult("a", 5, 1))
	writeResult(t, filepath.Join(base, "b.json"), compareTestResult("b", 5, 1))
	cand := func(name string, mutate func(a, b *result.Result)) string {
		d := filepath.Join(dir, name)
		a, b := compareTestResult("a", 5, 1), compareTestResult("b", 5, 1)
		if mutate != nil {
			mutate(a, b)
		}
		writeResult(t, filepath.Join(d, "a.json"), a)
		if b != nil {
			writeResult(t, filepath.Join(d, "b.json"), b)
		}
		return d
	}
	cases := []struct {
		name   string
		dir    string
		extra  []string
		code   ExitCode
		stdout string // substring of the first line of stdout
		stderr string
	}{
		// Without calibration the documented between-session noise keeps
		// an unchanged build undecided at 3 % tolerances.
		{"same, not calibrated", cand("same", nil), nil, ExitInconclusive, "INCONCLUSIVE", ""},
		{"same, one session", cand("same1", nil), []string{"--assumed-between", "0"}, ExitPass, "PASS", ""},
		{"bad assumed-between", cand("same2", nil), []string{"--assumed-between", "2"}, ExitInvalid, "", "--assumed-between 2"},
		{"tpot regression", cand("slow", func(a, b *result.Result) { *b = *compareTestResult("b", 5, 2) }), nil, ExitRegression, "REGRESSION in b: TPOT p50 +100", ""},
		{"tpot improvement", cand("fast", func(a, b *result.Result) { *b = *compareTestResult("b", 5, 0.7) }), []string{"--assumed-between", "0"}, ExitPass, "PASS", ""},
		{"one trial each, small change", "", nil, ExitInconclusive, "INCONCLUSIVE", ""},
		{"workload changed", cand("changed", func(a, b *result.Result) { b.Workload.Hash = "new" }), nil, ExitInvalid, "INVALID", "workload changed since the baseline; re-baseline"},
		{"missing baseline", cand("extra", func(a, b *result.Result) { b.Workload.Cell = "c" }), nil, ExitInvalid, "INVALID", "c: no baseline"},
		{"missing baseline allowed", cand("extra2", func(a, b *result.Result) { b.Workload.Cell = "c" }), []string{"--allow-missing", "--assumed-between", "0"}, ExitPass, "PASS", ""},
		{"gpu differs", cand("gpu", func(a, b *result.Result) { a.Fingerprint["gpu.name"] = "other" }), nil, ExitInvalid, "INVALID", `gpu.name "sim" vs "other"`},
		{"gpu differs allowed", cand("gpu2", func(a, b *result.Result) { a.Fingerprint["gpu.name"] = "other" }), []string{"--allow-mismatch", "--assumed-between", "0"}, ExitPass, "PASS", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, c := base, tc.dir
			if tc.dir == "" {
				b = writeResult(t, filepath.Join(dir, "one-b.json"), compareTestResult("a", 1, 1))
				c = writeResult(t, filepath.Join(dir, "one-c.json"), compareTestResult("a", 1, 1.02))
			}
			code, out, errs := runCLI(append([]string{"compare", "--baseline", b, "--candidate", c}, tc.extra...)...)
			first, _, _ := strings.Cut(out, "\n")
			if code != tc.code || !strings.Contains(first, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
		})
	}
}

func TestCompareTextOrdersRegressionsFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := writeResult(t, filepath.Join(dir, "b", "x.json"), compareTestResult("x", 5, 1))
	c := writeResult(t, filepath.Join(dir, "c", "x.json"), compareTestResult("x", 5, 2))
	code, out, _ := runCLI("compare", "--baseline", b, "--candidate", c)
	lines := strings.Split(out, "\n")
	if code != ExitRegression || len(lines) < 5 || !strings.Contains(lines[0], "TPOT p50") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var header int
	for i, l := range lines {
		if strings.HasPrefix(l, "WORKLOAD") {
			header = i
		}
	}
	if !strings.Contains(lines[header+1], "TPOT p50") || !strings.Contains(lines[header+1], "REGRESSION") {
		t.Errorf("first table row is not the regression:\n%s", out)
	}
	// Aligned: the OUTCOME column starts at the same rune offset in every
	// row (cells hold multi-byte characters such as "±").
	col := len([]rune(lines[header][:strings.Index(lines[header], "OUTCOME")]))
	rows := 0
	for _, line := range lines[header+1:] {
		if !strings.HasPrefix(line, "x ") {
			break // the table's end: its footnotes and summary lines follow
		}
		rows++
		l := []rune(line)
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row not aligned at column %d: %q", col, l)
		}
	}
	if rows < 2 {
		t.Errorf("%d table rows: alignment checked on too few\n%s", rows, out)
	}
}

func TestCompareJSONAndOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := writeResult(t, filepath.Join(dir, "b.json"), compareTestResult("x", 5, 1))
	c := writeResult(t, filepath.Join(dir, "c.json"), compareTestResult("x", 5, 2))
	outFile := filepath.Join(dir, "report", "cmp.json")
	code, out, _ := runCLI("compare", "--baseline", b, "--candidate", c, "--format", "json", "--out", outFile)
	if code != ExitRegression || !strings.Contains(out, outFile) {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var cmp verdict.Comparison
	if err := json.Unmarshal(data, &cmp); err != nil {
		t.Fatal(err)
	}
	if cmp.Schema != verdict.SchemaID || cmp.Verdict != verdict.Regression || cmp.Headline == nil || cmp.Headline.Metric != "tpot_ms.p50" || len(cmp.Cells) == 0 {
		t.Errorf("json comparison: verdict %s headline %+v", cmp.Verdict, cmp.Headline)
	}
	code, out, _ = runCLI("compare", "--baseline", b, "--candidate", c, "--format", "markdown")
	if code != ExitRegression || !strings.Contains(out, "TPOT p50") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
}

func TestCompareBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeResult(t, filepath.Join(dir, "good.json"), compareTestResult("x", 5, 1))
	data, _ := os.ReadFile(good)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := compareTestResult("x", 0, 1)
	cases := []struct {
		name, path, want string
	}{
		{"truncated", write("trunc.json", string(data[:len(data)/2])), "trunc.json"},
		{"wrong schema", write("schema.json", strings.Replace(string(data), result.Schema, "perfgate.result/v9", 1)), `schema.json: unsupported schema "perfgate.result/v9"`},
		{"empty trials", writeResult(t, filepath.Join(dir, "empty.json"), empty), "empty.json: no trials"},
		{"NaN", write("nan.json", strings.Replace(string(data), `"success_rate": 1`, `"success_rate": NaN`, 1)), "nan.json"},
		{"negative", write("neg.json", strings.Replace(string(data), `"success_rate": 1`, `"success_rate": -1`, 1)), "neg.json"},
		{"missing file", filepath.Join(dir, "nope.json"), "nope.json"},
		{"empty dir", t.TempDir(), "no result files"},
	}
	for _, tc := range cases {
		code, _, errs := runCLI("compare", "--baseline", good, "--candidate", tc.path)
		if code != ExitInvalid || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", tc.name, code, errs, tc.want)
		}
	}
	for _, args := range [][]string{
		{"compare", "--candidate", good},
		{"compare", "--baseline", good},
		{"compare", "--baseline", good, "--candidate", good, "--format", "html"},
	} {
		if code, _, errs := runCLI(args...); code != ExitInvalid || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}
