package bisect

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestStepAlpha(t *testing.T) {
	for _, c := range []struct {
		n, steps int
		alpha    float64
	}{
		{1, 1, 0.05},      // adjacent ends: the ends' test alone
		{2, 2, 0.025},     // ends + one halving
		{32, 6, 0.05 / 6}, // ends + 5 halvings
		{33, 7, 0.05 / 7}, // one more commit than a power of two costs a halving
		{1000, 11, 0.05 / 11},
	} {
		if got := MaxSteps(c.n); got != c.steps {
			t.Errorf("MaxSteps(%d) = %d, want %d", c.n, got, c.steps)
		}
		if got := StepAlpha(c.n, 0.05); math.Abs(got-c.alpha) > 1e-15 {
			t.Errorf("StepAlpha(%d) = %v, want %v", c.n, got, c.alpha)
		}
	}
}

func TestLooks(t *testing.T) {
	for _, c := range []struct {
		first, more, most, looks int
		at                       []int
	}{
		{16, 8, 48, 5, []int{16, 24, 32, 40, 48}},
		{16, 16, 40, 3, []int{16, 32, 40}}, // the last look stops at the most
		{16, 8, 16, 1, []int{16}},
	} {
		if got := looksOf(c.first, c.more, c.most); got != c.looks {
			t.Errorf("looksOf(%d, %d, %d) = %d, want %d", c.first, c.more, c.most, got, c.looks)
		}
		for i, want := range c.at {
			if got := blocksAt(i+1, c.first, c.more, c.most); got != want {
				t.Errorf("blocksAt(%d, %d, %d, %d) = %d, want %d", i+1, c.first, c.more, c.most, got, want)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name    string
		o       Options
		commits int
		want    string
	}{
		{"one commit", Options{Metric: "tpot_ms.p50"}, 1, "a good and a bad end"},
		{"unknown metric", Options{Metric: "tpot_ms.bogus"}, 5, `metric "tpot_ms.bogus": unknown`},
		{"odd blocks", Options{Metric: "tpot_ms.p50", Blocks: 7}, 5, "blocks 7: want an even number"},
		{"max below first", Options{Metric: "tpot_ms.p50", Blocks: 16, MaxBlocks: 8}, 5, "max blocks 8: below the 16 blocks"},
		{"budget below a step", Options{Metric: "tpot_ms.p50", Budget: 20}, 5, "budget 20 blocks"},
		{"share", Options{Metric: "tpot_ms.p50", MinShare: 1.5}, 5, "min share 1.5"},
	} {
		err := c.o.withDefaults().validate(c.commits)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to say %q", c.name, err, c.want)
		}
	}
	if err := (Options{Metric: "tpot_ms.p50"}).withDefaults().validate(33); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestFirstBlocks: a longer cached experiment is judged as its first n
// blocks: the order, the design's blocks and the trials are cut.
func TestFirstBlocks(t *testing.T) {
	b := newModelBench(gpuRunner(culpritAt(2, nil)), 1)
	ra, rb, err := b.Run(context.Background(), Pair{0, 2}, 8)
	if err != nil {
		t.Fatal(err)
	}
	cut := FirstBlocks(ra, 4)
	if got := cut[0].AB.Order; got != "ABBA" {
		t.Errorf("order %q, want ABBA", got)
	}
	if len(cut[0].AB.Blocks) != 4 || len(cut[0].Trials) != 2*2 {
		t.Errorf("%d blocks, %d trials of arm A, want 4 and 4", len(cut[0].AB.Blocks), len(cut[0].Trials))
	}
	if len(ra[0].Trials) != 8 || len(ra[0].AB.Order) != 8 {
		t.Error("FirstBlocks changed its input")
	}
	if got := FirstBlocks(rb, 8)[0]; got != rb[0] {
		t.Error("a result of n blocks is not copied")
	}
}

// TestAdjacentEnds: good and bad one commit apart: the ends' experiment
// names the bad end, without a step.
func TestAdjacentEnds(t *testing.T) {
	b := newModelBench(gpuRunner(culpritAt(1, map[int]float64{1: 1.30})), 1)
	res, err := Search(context.Background(), commitsOf(1), b, Options{Metric: "tpot_ms.p50"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Found || len(res.Culprits) != 1 || res.Culprits[0].Index != 1 || len(res.Steps) != 0 {
		t.Fatalf("status %s, culprits %+v, %d steps; want c01 named without a step", res.Status, res.Culprits, len(res.Steps))
	}
	if s := res.Culprits[0].Share; s != 1 {
		t.Errorf("share %v, want 1 (the culprit's experiment is the ends')", s)
	}
}

// failingBench fails its Run once it has been asked for failAt blocks in
// all, as an interrupt or a failed build stops a search.
type failingBench struct {
	*modelBench
	asked, failAt int
}

func (f *failingBench) Run(ctx context.Context, p Pair, blocks int) ([]*result.Result, []*result.Result, error) {
	have := 0
	if e := f.exps[p]; e != nil {
		have = len(e.a.AB.Order)
	}
	f.asked += max(blocks-have, 0)
	if f.asked > f.failAt {
		return nil, nil, errors.New("interrupted")
	}
	return f.modelBench.Run(ctx, p, blocks)
}

// TestInterruptedResumes: a search stopped mid-way keeps what it
// measured (in the Bench), says it stopped, and the same search run again
// over the same Bench spends no block twice and reaches the result of an
// uninterrupted search.
func TestInterruptedResumes(t *testing.T) {
	m := gpuRunner(culpritAt(16, map[int]float64{11: 1.10}))
	o := Options{Metric: "tpot_ms.p50"}
	whole, err := Search(context.Background(), commitsOf(16), newModelBench(m, 7), o)
	if err != nil || whole.Status != Found {
		t.Fatalf("uninterrupted: %v, %+v", err, whole)
	}
	fb := &failingBench{modelBench: newModelBench(m, 7), failAt: 60}
	stopped, err := Search(context.Background(), commitsOf(16), fb, o)
	if err == nil || stopped.Status != Interrupted || !strings.Contains(stopped.Message, "run the same command again to continue") {
		t.Fatalf("stopped: err %v, status %s, message %q", err, stopped.Status, stopped.Message)
	}
	ran := fb.runs
	again, err := Search(context.Background(), commitsOf(16), fb.modelBench, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Culprits, whole.Culprits) || again.Blocks != whole.Blocks {
		t.Errorf("resumed search: culprits %+v in %d blocks, uninterrupted: %+v in %d", again.Culprits, again.Blocks, whole.Culprits, whole.Blocks)
	}
	if fb.runs-ran != whole.Blocks-ran {
		t.Errorf("the resumed search ran %d blocks, want the %d the first one had not", fb.runs-ran, whole.Blocks-ran)
	}
}

// TestBudget: a budget smaller than the search needs ends it NotFound
// with the range it narrowed to, never beyond the budget.
func TestBudget(t *testing.T) {
	m := gpuRunner(culpritAt(32, map[int]float64{9: 1.05}))
	res, err := Search(context.Background(), commitsOf(32), newModelBench(m, 3), Options{Metric: "tpot_ms.p50", Budget: 120})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != NotFound || res.Blocks > 120 || len(res.Open) == 0 {
		t.Fatalf("status %s, %d blocks, open %+v; want not-found within 120 blocks with the range left", res.Status, res.Blocks, res.Open)
	}
	if o := res.Open[0]; o.Lo >= 9 || o.Hi < 9 || !strings.Contains(o.Why, "budget") {
		t.Errorf("open range %+v: want it to hold commit 9 and say the budget is spent", o)
	}
}

// TestTwoCommitsShares: a 6 % and a 4 % slowdown at commits 5 and 20 of
// 32: one search (seeded) names both, each with its share of the step.
func TestTwoCommitsShares(t *testing.T) {
	m := gpuRunner(culpritAt(32, map[int]float64{5: 1.06, 20: 1.04}))
	res, err := Search(context.Background(), commitsOf(32), newModelBench(m, 11), Options{Metric: "tpot_ms.p50"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Found || len(res.Culprits) != 2 {
		t.Fatalf("status %s, culprits %+v: want both", res.Status, res.Culprits)
	}
	split := false
	for _, st := range res.Steps {
		split = split || st.Decision == Split
	}
	if !split {
		t.Error("no step split the search")
	}
	want := map[int]float64{5: math.Log(1.06) / math.Log(1.06*1.04), 20: math.Log(1.04) / math.Log(1.06*1.04)}
	for _, c := range res.Culprits {
		w, ok := want[c.Index]
		if !ok {
			t.Errorf("named commit %d", c.Index)
			continue
		}
		if c.ShareLow > w || c.ShareHigh < w {
			t.Errorf("commit %d: share %.2f [%.2f, %.2f], true %.2f", c.Index, c.Share, c.ShareLow, c.ShareHigh, w)
		}
	}
}

// TestHigherIsBetter: a metric that gets worse by falling (output
// throughput) is searched the same way: the culprit's change is positive
// worse, its share about one.
func TestHigherIsBetter(t *testing.T) {
	m := gpuRunner(culpritAt(16, map[int]float64{6: 1.10}))
	res, err := Search(context.Background(), commitsOf(16), newModelBench(m, 4), Options{Metric: "output_throughput"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Found || len(res.Culprits) != 1 || res.Culprits[0].Index != 6 {
		t.Fatalf("status %s, culprits %+v: want commit 6", res.Status, res.Culprits)
	}
	if c := res.Culprits[0]; c.Effect.Worse < 5 || c.ShareLow > 1 || c.ShareHigh < 1 {
		t.Errorf("culprit %+v: want about 9 %% worse (throughput down), share about 1", c)
	}
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("markdown differs from %s (run with -update):\n%s", path, got)
	}
}

// TestRenderNoDifference: ends that do not differ are said so, with what
// was measured, and no step is listed.
func TestRenderNoDifference(t *testing.T) {
	res, err := Search(context.Background(), commitsOf(32), newModelBench(gpuRunner(culpritAt(32, nil)), 2), Options{Metric: "tpot_ms.p50"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != NoDifference || len(res.Steps) != 0 {
		t.Fatalf("status %s, %d steps", res.Status, len(res.Steps))
	}
	var md bytes.Buffer
	if err := Markdown(&md, res); err != nil {
		t.Fatal(err)
	}
	golden(t, "no-difference.md", md.String())
}

// TestRender: the JSON round-trips, and the markdown is the golden file.
func TestRender(t *testing.T) {
	m := gpuRunner(culpritAt(8, map[int]float64{3: 1.10}))
	cs := commitsOf(8)
	cs[3].Subject = "sched: batch | prefill <b>first</b> @team"
	res, err := Search(context.Background(), cs, newModelBench(m, 5), Options{Metric: "tpot_ms.p50"})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := JSON(&js, res); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, res) {
		t.Errorf("JSON round trip changed the result:\n%+v\n%+v", back, res)
	}
	if _, err := Decode(strings.NewReader(`{"schema":"perfgate.bisect/v0"}`)); err == nil {
		t.Error("a wrong schema decoded")
	}
	var md bytes.Buffer
	if err := Markdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "<b>") || strings.Contains(md.String(), "@team") {
		t.Errorf("a commit subject reached the markdown unescaped:\n%s", md.String())
	}
	golden(t, "found.md", md.String())
}

// FuzzDecode: any input decodes to a Result of the schema or an error,
// never a panic, and what decodes writes back to JSON that reads back to
// the same JSON (an empty list under omitempty is written as none, so the
// structs may differ in nil against empty).
func FuzzDecode(f *testing.F) {
	f.Add(`{"schema":"perfgate.bisect/v1","metric":"tpot_ms.p50","status":"found","steps":[],"culprits":[]}`)
	f.Add(`{"schema":"perfgate.bisect/v1","ends":{"a":0,"b":3,"worse":1e308}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Decode(strings.NewReader(s))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := JSON(&b, r); err != nil {
			return // NaN and infinities do not encode; Decode never makes them
		}
		first := b.String()
		back, err := Decode(&b)
		if err != nil {
			t.Fatalf("re-reading what JSON wrote: %v\n%s", err, first)
		}
		var again bytes.Buffer
		if err := JSON(&again, back); err != nil || again.String() != first {
			t.Errorf("round trip: %v\n%s\n%s", err, first, again.String())
		}
	})
}
