// Command commentgen writes the PR comment of a synthetic many-workload
// regression, so the render check (.ci/render-comment.sh) can measure how
// tall the comment is when many workloads regress at once: the demo has
// one workload and cannot show that. The results are seeded, log-normal
// around serving-shaped values, and compared with the real verdict.Compare
// and default policy, so the comment is what perfgate gate would post.
//
// Usage: go run ./internal/commentgen [-workloads 12] [-history 0] [-scenario regression] [-o comment.md]
//
// -scenario aa compares the same build on both sides with the default,
// uncalibrated between-session noise (an A/A comment: undecided, nothing
// regressed); -scenario inconclusive runs 3 trials per arm of a 2 % slower
// decode (undecided: too few trials). The render check measures both, since
// an undecided comment must say why in its first screen too.
//
// -history N gives every workload N promoted runs of history, so the list
// shows each cell's trend. The render check leaves it off: with a trend
// column the 12-workload list wraps to 2,344 px, over the 1,800 px budget.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func main() {
	n := flag.Int("workloads", 12, "number of workloads, every one with a regressed decode")
	h := flag.Int("history", 0, "promoted runs of history per workload (0: none, no trend column)")
	out := flag.String("o", "comment.md", "where to write the comment")
	flag.StringVar(&scenario, "scenario", "regression", "regression, aa (same build both sides) or inconclusive (3 trials, decode 2 % slower)")
	flag.Parse()
	if err := run(*n, *h, *out); err != nil {
		fmt.Fprintln(os.Stderr, "commentgen:", err)
		os.Exit(1)
	}
}

// scenario is the -scenario flag: which comparison the comment shows.
var scenario = "regression"

func run(n, h int, out string) error {
	switch scenario {
	case "regression", "aa", "inconclusive":
	default:
		return fmt.Errorf("-scenario %q: want regression, aa or inconclusive", scenario)
	}
	if n < 1 || n > 200 {
		return fmt.Errorf("-workloads %d: want 1 to 200", n)
	}
	if h < 0 || h > 100 {
		return fmt.Errorf("-history %d: want 0 to 100", h)
	}
	md, err := comment(n, h)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, md, 0o644); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	fmt.Println(out)
	return nil
}

// comment compares n seeded workloads whose candidate decodes 4 to 15 %
// slower (a different slowdown per workload, so the chart's bars differ)
// with h promoted runs of history each (none when h is 0), and renders the comment within GitHub's limit, as perfgate gate does.
func comment(n, h int) ([]byte, error) {
	d, err := data(n, h)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := report.Markdown(&buf, d, report.CommentLimit); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// data is the report input of n seeded workloads, compared, with h runs
// of history each (the baseline the newest).
func data(n, h int) (*report.Data, error) {
	rng := rand.New(rand.NewPCG(10, 12))
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var base, cand []*result.Result
	for i := 0; i < n; i++ {
		cell := fmt.Sprintf("chat-%dk-c%d", 1+i%4, 8<<(i%3))
		hash := fmt.Sprintf("h%02d", i)
		slow, trials := 1.04+0.11*float64(i)/float64(max(n-1, 1)), 6
		switch scenario {
		case "aa":
			slow = 1
		case "inconclusive":
			slow, trials = 1.02, 3
		}
		b := synth(rng, cell, hash, start, 1, false, trials)
		c := synth(rng, cell, hash, start.Add(72*time.Hour), slow, true, trials)
		base, cand = append(base, b), append(cand, c)
	}
	// The synthetic arms share one noise level and no session effect, so
	// the comparison assumes no between-session term, as the demo does.
	// An A/A comparison keeps the documented default, as an uncalibrated
	// profile would.
	policy := verdict.DefaultPolicy()
	if scenario != "aa" {
		policy.AssumedBetween = map[string]float64{"*": 0}
	}
	cmp, err := verdict.Compare(base, cand, policy, verdict.Look{})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	d := &report.Data{Comparison: cmp, Profile: "h100-qwen3-8b", FullReport: "perfgate-out/report.md",
		Head: report.Revision{Commit: "def5678e9a0b", Ref: "refs/pull/42/merge"}, Runner: "gpu-h100-3",
		Candidates: map[string]*result.Result{}, Baselines: map[string]*result.Result{},
		ResultPaths: map[string]string{}, BaselinePaths: map[string]string{}}
	for i := range cand {
		cell := cand[i].Workload.Cell
		d.Candidates[cell], d.Baselines[cell] = cand[i], base[i]
		d.ResultPaths[cell] = "perfgate-out/results/" + result.FileName(cell)
		d.BaselinePaths[cell] = "baselines/h100-qwen3-8b/" + result.FileName(cell)
	}
	if h == 0 {
		return d, nil
	}
	// A separate stream, so the history does not move the arms' draws.
	hist := rand.New(rand.NewPCG(10, 13))
	d.History = map[string][]report.Run{}
	for _, b := range base {
		d.History[b.Workload.Cell] = history(hist, b, h)
	}
	return d, nil
}

// history is a workload's h promoted runs, oldest first, ending with the
// baseline b: the earlier runs' centres scatter 1 % (a between-session
// term) around the baseline's geometric means, a day apart, so the
// comment's trend column shows what a real profile's history gives it.
func history(rng *rand.Rand, b *result.Result, h int) []report.Run {
	centre := map[string]float64{}
	for _, t := range b.Trials {
		for id, v := range t.Values {
			centre[id] += math.Log(v) / float64(len(b.Trials))
		}
	}
	ids := slices.Sorted(maps.Keys(centre))
	runs := make([]report.Run, h)
	for k := range runs {
		c := map[string]float64{}
		for _, id := range ids {
			c[id] = math.Exp(centre[id])
			if k < h-1 && id != "success_rate" {
				c[id] *= math.Exp(0.01 * rng.NormFloat64())
			}
		}
		back := time.Duration(h-1-k) * 24 * time.Hour
		runs[k] = report.Run{Commit: fmt.Sprintf("%08x", 0x9e000000+k), PromotedAt: b.Provenance.PromotedAt.Add(-back), Centre: c}
	}
	runs[h-1].Commit = b.Provenance.GitSHA
	return runs
}

// synth is one arm's result of a workload: trials scattering 1.5 %
// around typical values, with the decode metrics (TPOT, ITL) scaled by slow.
func synth(rng *rand.Rand, cell, hash string, at time.Time, slow float64, candidate bool, trials int) *result.Result {
	values := map[string]float64{
		"ttft_ms.p50": 180, "ttft_ms.p90": 260, "ttft_ms.p95": 300, "ttft_ms.p99": 410,
		"tpot_ms.p50": 21.5, "tpot_ms.p90": 24, "tpot_ms.p95": 25, "tpot_ms.p99": 28,
		"itl_ms.p50": 21, "itl_ms.p90": 24, "itl_ms.p95": 26, "itl_ms.p99": 31,
		"e2el_ms.p50": 6400, "e2el_ms.p90": 7100, "e2el_ms.p95": 7300, "e2el_ms.p99": 7900,
		"output_throughput": 2450, "request_throughput": 2.45, "total_token_throughput": 12250,
		"success_rate": 1,
	}
	decode := map[string]bool{"tpot_ms.p50": true, "tpot_ms.p90": true, "tpot_ms.p95": true, "tpot_ms.p99": true,
		"itl_ms.p50": true, "itl_ms.p90": true, "itl_ms.p95": true, "itl_ms.p99": true}
	model := "Qwen/Qwen3-8B"
	r := &result.Result{
		Schema:      result.Schema,
		Tool:        result.Tool{Name: "perfgate", Version: "commentgen"},
		Workload:    result.Workload{Name: cell, Cell: cell, Hash: hash, Spec: json.RawMessage(`{"load":{"concurrency":16,"rate":"inf"}}`)},
		Server:      result.Server{URL: "http://127.0.0.1:8000", Model: model, Version: "0.11.0", Models: []string{model}, MaxModelLen: 8192},
		Fingerprint: map[string]string{"gpu.name": "H100 80GB", "gpu.count": "8", "server.model": model},
		StartedAt:   at, FinishedAt: at.Add(5 * time.Minute), Complete: true, Warmups: 20, Source: "perfgate run",
	}
	if !candidate {
		r.Provenance = &result.Provenance{GitSHA: "1a2b3c4d", GitRef: "refs/heads/main", PromotedAt: at.Add(time.Hour), How: "perfgate baseline update"}
	}
	for i := 0; i < trials; i++ {
		t := result.Trial{Index: i, Valid: true, Completed: 64, DurationS: 26, Values: map[string]float64{}}
		// Sorted, so the random draws go to the same metrics every run
		// and the comment is the same byte for byte.
		for _, id := range slices.Sorted(maps.Keys(values)) {
			v := values[id]
			switch {
			case id == "success_rate":
				t.Values[id] = v
			case decode[id]:
				t.Values[id] = v * slow * math.Exp(0.015*rng.NormFloat64())
			default:
				t.Values[id] = v * math.Exp(0.015*rng.NormFloat64())
			}
		}
		r.Trials = append(r.Trials, t)
	}
	return r
}
