package merge

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func res(cell, hash string, start time.Time, vals ...float64) *result.Result {
	r := &result.Result{
		Schema:      result.Schema,
		Tool:        result.Tool{Name: "perfgate", Version: "test"},
		Workload:    result.Workload{Name: cell, Cell: cell, Hash: hash},
		Server:      result.Server{URL: "http://127.0.0.1:1", Model: "m"},
		Fingerprint: map[string]string{"gpu.name": "sim"},
		StartedAt:   start,
		FinishedAt:  start.Add(time.Minute),
		Complete:    true,
		Warmups:     2,
	}
	for i, v := range vals {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Completed: 8, Values: map[string]float64{"tpot_ms.median": v}})
	}
	return r
}

func TestResults(t *testing.T) {
	a1 := res("a", "h1", t0, 10, 11)
	a2 := res("a", "h1", t0.Add(-time.Hour), 12)
	a2.Fingerprint["host"] = "runner-2"
	b := res("b", "h2", t0, 20)
	got, err := Results([]Source{{"s1/a.json", a1}, {"s2/b.json", b}, {"s2/a.json", a2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Result.Workload.Cell != "a" || got[1].Result.Workload.Cell != "b" {
		t.Fatalf("cells = %+v", got)
	}
	a := got[0].Result
	var idx []int
	var vals []float64
	for _, tr := range a.Trials {
		idx = append(idx, tr.Index)
		vals = append(vals, tr.Values["tpot_ms.median"])
	}
	if !reflect.DeepEqual(idx, []int{0, 1, 2}) || !reflect.DeepEqual(vals, []float64{10, 11, 12}) {
		t.Errorf("trials: indexes %v values %v, want [0 1 2] [10 11 12]", idx, vals)
	}
	if !a.StartedAt.Equal(t0.Add(-time.Hour)) || !a.FinishedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("time span %v..%v", a.StartedAt, a.FinishedAt)
	}
	if !a.Complete {
		t.Error("merge of complete parts is incomplete")
	}
	if len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "host") {
		t.Errorf("notes = %q, want one naming the fingerprint key host", a.Notes)
	}
	if !reflect.DeepEqual(got[0].From, []string{"s1/a.json", "s2/a.json"}) {
		t.Errorf("From = %v", got[0].From)
	}
	// Sources are not mutated.
	if len(a1.Trials) != 2 || a2.Trials[0].Index != 0 || a1.Fingerprint["host"] != "" {
		t.Error("merge mutated a source")
	}
}

func TestResultsIncompletePartMakesIncomplete(t *testing.T) {
	a1 := res("a", "h1", t0, 10)
	a2 := res("a", "h1", t0, 11)
	a2.Complete, a2.IncompleteReason = false, "server died"
	got, err := Results([]Source{{"s1/a.json", a1}, {"s2/a.json", a2}})
	if err != nil {
		t.Fatal(err)
	}
	if r := got[0].Result; r.Complete || !strings.Contains(r.IncompleteReason, "server died") {
		t.Errorf("Complete=%v reason=%q", r.Complete, r.IncompleteReason)
	}
}

func TestResultsHashMismatch(t *testing.T) {
	_, err := Results([]Source{{"s1/a.json", res("a", "h1", t0, 1)}, {"s2/a.json", res("a", "h9", t0, 1)}})
	if err == nil {
		t.Fatal("different hashes merged")
	}
	for _, want := range []string{"s1/a.json", "s2/a.json", "h1", "h9"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestReadWriteRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s1 := filepath.Join(dir, "shard1")
	s2 := filepath.Join(dir, "shard2", ResultsDir) // a gate output dir
	must(t, result.Write(filepath.Join(s1, "a.json"), res("a", "h1", t0, 1, 2)))
	must(t, result.Write(filepath.Join(s2, "a.json"), res("a", "h1", t0, 3)))
	must(t, result.Write(filepath.Join(s2, "b.json"), res("b", "h2", t0, 4)))
	// Other files beside the results are ignored (report.md), jsonl too.
	must(t, os.WriteFile(filepath.Join(dir, "shard2", "report.md"), []byte("x"), 0o644))

	srcs, err := Read([]string{s1, filepath.Join(dir, "shard2")})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := Results(srcs)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged")
	paths, err := Write(out, merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("wrote %v", paths)
	}
	back, err := result.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back[0].Trials) != 3 || len(back[1].Trials) != 1 {
		t.Errorf("trials per cell: %d, %d", len(back[0].Trials), len(back[1].Trials))
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"schema": "perfgate.result/v1", "trials": [`), 0o644))
	empty := t.TempDir()
	good := filepath.Join(t.TempDir(), "a.json")
	must(t, result.Write(good, res("a", "h1", t0, 1)))
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no shard"},
		{[]string{filepath.Join(dir, "missing")}, "missing"},
		{[]string{dir}, "bad.json"},
		{[]string{empty}, "no result files"},
		{[]string{good, filepath.Dir(good) + "//a.json"}, "given twice"},
	}
	for _, tt := range tests {
		_, err := Read(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Read(%v) error = %v, want one containing %q", tt.args, err, tt.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestResultsKeepLooks: shards of a gate that judged one cell at look 2
// of 3 and another part at look 1 of 1 merge into a cell judged at look 2
// of 3, so perfgate gate --from tests it at alpha/3 as the shard did; the
// trials keep the look they were added in, and the sources are untouched.
func TestResultsKeepLooks(t *testing.T) {
	a1 := res("a", "h1", t0, 10, 11, 12)
	a1.Looks = &result.Looks{Index: 2, Max: 3}
	a1.Trials[2].Look = 1
	a2 := res("a", "h1", t0, 13)
	a2.Looks = &result.Looks{Index: 1, Max: 1}
	b := res("b", "h2", t0, 20)
	b.Looks = &result.Looks{Index: 1, Max: 3}
	got, err := Results([]Source{{"s1/a.json", a1}, {"s2/a.json", a2}, {"s2/b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	if l := got[0].Result.Looks; l == nil || *l != (result.Looks{Index: 2, Max: 3}) {
		t.Errorf("merged a: looks %+v, want 2 of 3", l)
	}
	if got[0].Result.Trials[2].Look != 1 {
		t.Errorf("merged a: trial 2 look %d, want 1", got[0].Result.Trials[2].Look)
	}
	if l := got[1].Result.Looks; l == nil || *l != (result.Looks{Index: 1, Max: 3}) || l == b.Looks {
		t.Errorf("single-part b: looks %+v, want a copy of 1 of 3", l)
	}
	if *a1.Looks != (result.Looks{Index: 2, Max: 3}) || *a2.Looks != (result.Looks{Index: 1, Max: 1}) {
		t.Error("merging modified a source's looks")
	}
}
