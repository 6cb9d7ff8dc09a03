package report

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The report's input is the comparison's JSON form (the contract with
// package verdict), so the golden tests read stored comparisons rather
// than calling verdict.Compare: a change in the statistics must not
// silently change the report's tests. -fixtures regenerates the stored
// comparisons from seeded synthetic results with the real verdict.Compare.
var regenFixtures = flag.Bool("fixtures", false, "regenerate testdata/*.fixture.json with verdict.Compare")

// fixture is one stored scenario: the results of both arms and the
// comparison verdict.Compare made of them.
type fixture struct {
	Baselines  []*result.Result    `json:"baselines"`
	Candidates []*result.Result    `json:"candidates"`
	Comparison *verdict.Comparison `json:"comparison"`
}

var fixtureStart = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// synth makes a result of n trials whose metrics scatter log-normally
// (CV 2 %, or 1 % for a quiet machine) around base values scaled by the
// factors in scale.
func synth(rng *rand.Rand, cell, hash string, n int, scale map[string]float64, candidate bool) *result.Result {
	return synthCV(rng, cell, hash, n, scale, candidate, 0.02)
}

func synthCV(rng *rand.Rand, cell, hash string, n int, scale map[string]float64, candidate bool, cv float64) *result.Result {
	base := map[string]float64{
		"ttft_ms.p50": 180, "ttft_ms.p90": 260, "ttft_ms.p95": 300, "ttft_ms.p99": 410,
		"tpot_ms.p50": 21.5, "tpot_ms.p90": 24, "tpot_ms.p95": 25, "tpot_ms.p99": 28,
		"itl_ms.p50": 21, "itl_ms.p90": 24, "itl_ms.p95": 26, "itl_ms.p99": 31,
		"e2el_ms.p50": 6400, "e2el_ms.p90": 7100, "e2el_ms.p95": 7300, "e2el_ms.p99": 7900,
		"output_throughput": 2450, "request_throughput": 2.45, "total_token_throughput": 12250,
		"qpm": 147, "tpm": 735000, "success_rate": 1, "total_input_tokens": 256000, "total_output_tokens": 64000,
	}
	model, version := "Qwen/Qwen3-8B", "0.11.0"
	r := &result.Result{
		Schema:   result.Schema,
		Tool:     result.Tool{Name: "perfgate", Version: "test"},
		Workload: result.Workload{Name: cell, Cell: cell, Hash: hash, Spec: json.RawMessage(`{"load":{"concurrency":16,"rate":"inf"}}`)},
		Server:   result.Server{URL: "http://127.0.0.1:8000", Model: model, Version: version, Models: []string{model}, MaxModelLen: 8192},
		Fingerprint: map[string]string{
			"gpu.name": "H100 80GB", "gpu.count": "8", "server.model": model,
			"server.argv":              `["vllm","serve","Qwen/Qwen3-8B","--tensor-parallel-size","8","--kv-cache-dtype","fp8","--max-num-seqs","32"]`,
			"env.NCCL_P2P_DISABLE":     "0",
			"env.CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
		},
		StartedAt: fixtureStart, FinishedAt: fixtureStart.Add(5 * time.Minute), Complete: true, Warmups: 20,
		Source: "perfgate run",
	}
	if candidate {
		r.StartedAt, r.FinishedAt = fixtureStart.Add(72*time.Hour), fixtureStart.Add(72*time.Hour+5*time.Minute)
		r.Fingerprint["env.NCCL_P2P_DISABLE"] = "1"
		r.Server.Version = "0.11.1.dev3+g1a2b3c"
	} else {
		r.Provenance = &result.Provenance{GitSHA: "1a2b3c4d", GitRef: "refs/heads/main", PromotedAt: fixtureStart.Add(time.Hour), How: "perfgate baseline update --from results/"}
	}
	ids := make([]string, 0, len(base))
	for id := range base {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i := 0; i < n; i++ {
		t := result.Trial{Index: i, Valid: true, Completed: 64, DurationS: 26, Values: map[string]float64{}}
		// In a fixed order: ranging over the map would draw the generator
		// in a random order and make every regeneration differ.
		for _, id := range ids {
			v := base[id]
			f := scale[id]
			if f == 0 {
				f = 1
			}
			if id == "success_rate" {
				t.Values[id] = v
				continue
			}
			t.Values[id] = v * f * math.Exp(cv*rng.NormFloat64())
		}
		r.Trials = append(r.Trials, t)
	}
	return r
}

func fixtureScenarios() map[string]func(*rand.Rand) (b, c []*result.Result) {
	slow := map[string]float64{"tpot_ms.p50": 1.08, "tpot_ms.p90": 1.08, "tpot_ms.p95": 1.08, "tpot_ms.p99": 1.08,
		"itl_ms.p50": 1.08, "itl_ms.p90": 1.08, "itl_ms.p95": 1.08, "itl_ms.p99": 1.08}
	return map[string]func(*rand.Rand) (b, c []*result.Result){
		"regression": func(rng *rand.Rand) (b, c []*result.Result) {
			b = []*result.Result{synth(rng, "cx8-4000-1000-c16", "h1", 5, nil, false), synth(rng, "short|<chat>", "h2", 5, nil, false)}
			c = []*result.Result{synth(rng, "cx8-4000-1000-c16", "h1", 5, slow, true), synth(rng, "short|<chat>", "h2", 5, nil, true)}
			// A hostile error body and an invalid trial in the candidate.
			c[0].Trials[2].Failed, c[0].Trials[2].Errors = 2, map[string]int{"http_500": 2}
			c[0].Trials[2].ErrorSamples = map[string]string{"http_500": "</details>\n# boom | `rm -rf` [x](http://evil) @team"}
			c[0].Trials = append(c[0].Trials, result.Trial{Index: 5, Valid: false, InvalidReason: "server died: <EOF>", Completed: 10, Failed: 54, Values: map[string]float64{}})
			return b, c
		},
		"pass": func(rng *rand.Rand) (b, c []*result.Result) {
			fast := map[string]float64{"ttft_ms.p50": 0.85, "ttft_ms.p99": 0.85}
			return []*result.Result{synthCV(rng, "chat-1k", "h3", 10, nil, false, 0.01)}, []*result.Result{synthCV(rng, "chat-1k", "h3", 10, fast, true, 0.01)}
		},
		"invalid": func(rng *rand.Rand) (b, c []*result.Result) {
			b = []*result.Result{synth(rng, "a", "h1", 5, nil, false), synth(rng, "changed", "old", 5, nil, false)}
			c = []*result.Result{synth(rng, "a", "h1", 5, nil, true), synth(rng, "changed", "new", 5, nil, true), synth(rng, "new-workload", "h9", 5, nil, true)}
			return b, c
		},
		// An A/A comparison: the same build on both sides, four workloads of
		// five trials whose tail percentiles scatter widely (CV about 25 %),
		// as a small smoke workload's do.
		"aa": func(rng *rand.Rand) (b, c []*result.Result) {
			for i, cell := range []string{"smoke-chat-c4", "smoke-burst-c4", "smoke-prefix-c8", "smoke-long-c2"} {
				hash := fmt.Sprintf("aa%d", i)
				b = append(b, noisyTails(rng, synthCV(rng, cell, hash, 5, nil, false, 0.03), 0.25))
				c = append(c, noisyTails(rng, synthCV(rng, cell, hash, 5, nil, true, 0.03), 0.25))
			}
			return b, c
		},
		// A workload the load generator saturated in both arms (more than a
		// quarter of the baseline's trials invalid) next to one that passed:
		// the verdict is invalid, and the comment says why above the fold.
		"saturated": func(rng *rand.Rand) (b, c []*result.Result) {
			b = []*result.Result{synthCV(rng, "chat-1k", "h3", 5, nil, false, 0.01), synth(rng, "poisson-r20", "h5", 5, nil, false)}
			c = []*result.Result{synthCV(rng, "chat-1k", "h3", 5, nil, true, 0.01), synth(rng, "poisson-r20", "h5", 5, nil, true)}
			for _, i := range []int{1, 2, 4} {
				b[1].Trials[i].Valid, b[1].Trials[i].InvalidReason = false, "client saturated: dispatch lag p99 26.5 ms > 10 ms"
			}
			c[1].Trials[3].Valid, c[1].Trials[3].InvalidReason = false, "client saturated: dispatch lag p99 12.1 ms > 10 ms"
			return b, c
		},
		"inconclusive": func(rng *rand.Rand) (b, c []*result.Result) {
			edge := map[string]float64{"ttft_ms.p99": 1.05}
			return []*result.Result{synth(rng, "rag-32k", "h4", 2, nil, false)}, []*result.Result{synth(rng, "rag-32k", "h4", 2, edge, true)}
		},
	}
}

// noisyTails scatters r's p99 metrics by a further log-normal factor of
// spread cv per trial, as few requests per trial make a tail percentile
// scatter.
func noisyTails(rng *rand.Rand, r *result.Result, cv float64) *result.Result {
	for _, t := range r.Trials {
		for _, id := range []string{"ttft_ms.p99", "tpot_ms.p99", "itl_ms.p99", "e2el_ms.p99"} {
			t.Values[id] *= math.Exp(cv * rng.NormFloat64())
		}
	}
	return r
}

// fixturePolicy is the policy a scenario is compared under: the default,
// with no between-session noise assumed where both arms are meant as one
// server session (a scenario about a clear regression or a clear pass
// must not turn undecided by the documented default between-session CV);
// the A/A and inconclusive scenarios keep the default, uncalibrated one.
func fixturePolicy(name string) verdict.Policy {
	p := verdict.DefaultPolicy()
	switch name {
	case "aa", "inconclusive":
	default:
		p.AssumedBetween = map[string]float64{"*": 0}
	}
	return p
}

func TestFixtures(t *testing.T) {
	if !*regenFixtures {
		t.Skip("run with -fixtures to regenerate testdata/*.fixture.json")
	}
	writeABFixtures(t)
	for name, gen := range fixtureScenarios() {
		b, c := gen(rand.New(rand.NewPCG(1, 2)))
		cmp, err := verdict.Compare(b, c, fixturePolicy(name), verdict.Look{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := json.MarshalIndent(fixture{b, c, cmp}, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name+".fixture.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadFixture reads a stored scenario as report Data.
func loadFixture(t *testing.T, name string) *Data {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	d := &Data{Comparison: f.Comparison, Profile: "h100-qwen3-8b", Candidates: map[string]*result.Result{}, Baselines: map[string]*result.Result{},
		ResultPaths: map[string]string{}, BaselinePaths: map[string]string{}, FullReport: "perfgate-out/report.md",
		Head: Revision{Commit: "def5678e9a0b1c2d", Ref: "refs/pull/42/merge"}, Runner: "gpu-h100-3"}
	for _, r := range f.Candidates {
		d.Candidates[r.Workload.Cell] = r
		d.ResultPaths[r.Workload.Cell] = "perfgate-out/results/" + result.FileName(r.Workload.Cell)
	}
	for _, r := range f.Baselines {
		d.Baselines[r.Workload.Cell] = r
		d.BaselinePaths[r.Workload.Cell] = "baselines/h100-qwen3-8b/" + result.FileName(r.Workload.Cell)
	}
	return d
}
