package verdict

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// offlineTypical are plausible centres of what `vllm bench latency` and
// `vllm bench throughput` report.
var offlineTypical = []struct {
	id     string
	centre float64
}{
	{"offline_latency_ms.mean", 1210},
	{"offline_latency_ms.p50", 1200},
	{"offline_latency_ms.p99", 1320},
	{"offline_tokens_per_s", 5200},
	{"offline_requests_per_s", 10},
	{"offline_elapsed_s", 100},
}

// offlineArm draws n quiet trials of the offline metrics except those in
// drop; factor multiplies one metric (the injected change).
func offlineArm(rng *rand.Rand, n int, drop []string, factor map[string]float64) *result.Result {
	sigma := math.Sqrt(math.Log1p(0.005 * 0.005))
	vals := map[string][]float64{}
	for _, m := range offlineTypical {
		for i := 0; i < n; i++ {
			v := m.centre * math.Exp(sigma*rng.NormFloat64())
			if f, ok := factor[m.id]; ok {
				v *= f
			}
			if !slices.Contains(drop, m.id) {
				vals[m.id] = append(vals[m.id], v)
			}
		}
	}
	return newResult("engine", vals)
}

func commandSpec(kind string, gate ...result.GateRule) map[string]any {
	spec := map[string]any{"name": "engine", "cell": "engine", "gate": gate}
	if kind != "" {
		spec["kind"] = kind
	}
	return spec
}

func TestCommandCellGating(t *testing.T) {
	p50 := result.GateRule{Metric: "offline_latency_ms.p50", Tolerance: 0.03}
	p99 := result.GateRule{Metric: "offline_latency_ms.p99", Tolerance: 0.06}
	explicit, err := FromConfig(PolicyConfig{Gated: []string{"ttft_ms.p50", "offline_tokens_per_s", "offline_requests_per_s"}, AssumedBetween: map[string]float64{"*": 0}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		kind   string
		gate   []result.GateRule
		policy Policy
		// drop lists metrics neither arm carries; candDrop only the candidate lacks.
		drop, candDrop []string
		factor         map[string]float64
		gated          []string // the gated cells' metrics, sorted
		warnings       []string // substrings, one per expected workload warning
		verdict        Outcome
	}{
		{name: "own rule only", kind: result.KindCommand, gate: []result.GateRule{p50}, policy: oneSession(),
			gated: []string{"offline_latency_ms.p50"}, verdict: Pass},
		{name: "own rule catches a regression", kind: result.KindCommand, gate: []result.GateRule{p50}, policy: oneSession(),
			factor: map[string]float64{"offline_latency_ms.p50": 1.10},
			gated:  []string{"offline_latency_ms.p50"}, verdict: Regression},
		{name: "policy-gated offline ids the files carry", kind: result.KindCommand, gate: []result.GateRule{p50}, policy: explicit,
			gated: []string{"offline_latency_ms.p50", "offline_requests_per_s", "offline_tokens_per_s"}, verdict: Pass},
		{name: "policy-gated id the files lack is dropped silently", kind: result.KindCommand, gate: []result.GateRule{p50}, policy: explicit,
			drop:  []string{"offline_requests_per_s"},
			gated: []string{"offline_latency_ms.p50", "offline_tokens_per_s"}, verdict: Pass},
		{name: "policy-gated id only the baseline carries is untestable", kind: result.KindCommand, gate: []result.GateRule{p50}, policy: explicit,
			candDrop: []string{"offline_requests_per_s"},
			gated:    []string{"offline_latency_ms.p50", "offline_requests_per_s", "offline_tokens_per_s"}, verdict: Inconclusive},
		{name: "own rule missing from both runs is still reported", kind: result.KindCommand, gate: []result.GateRule{p50, p99}, policy: oneSession(),
			drop:     []string{"offline_latency_ms.p99"},
			gated:    []string{"offline_latency_ms.p50"},
			warnings: []string{"gated metric offline_latency_ms.p99 is in neither run"}, verdict: Pass},
		{name: "own rule turned off by the gate list", kind: result.KindCommand,
			gate:   []result.GateRule{p50, {Metric: "offline_tokens_per_s", Gated: new(false)}},
			policy: explicit,
			gated:  []string{"offline_latency_ms.p50", "offline_requests_per_s"}, verdict: Pass},
		// The same files under a serving spec keep today's behaviour: the
		// default serving metrics are gated and reported missing.
		{name: "serving cell unchanged", kind: "", gate: []result.GateRule{p50}, policy: oneSession(),
			gated:    []string{"offline_latency_ms.p50"},
			warnings: slices.Repeat([]string{"in neither run"}, len(DefaultGated)), verdict: Pass},
		{name: "explicit serving kind unchanged", kind: result.KindServing, gate: []result.GateRule{p50}, policy: oneSession(),
			gated:    []string{"offline_latency_ms.p50"},
			warnings: slices.Repeat([]string{"in neither run"}, len(DefaultGated)), verdict: Pass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 1))
			b := withSpec(offlineArm(rng, 5, tc.drop, nil), commandSpec(tc.kind, tc.gate...))
			c := withSpec(offlineArm(rng, 5, append(tc.drop, tc.candDrop...), tc.factor), commandSpec(tc.kind, tc.gate...))
			cmp := mustCompare(t, []*result.Result{b}, []*result.Result{c}, tc.policy)
			if len(cmp.Workloads) != 1 || cmp.Workloads[0].Status != Compared {
				t.Fatalf("workloads %+v", cmp.Workloads)
			}
			var gated []string
			for _, cell := range cmp.Cells {
				if cell.Gated {
					gated = append(gated, cell.Metric)
				}
			}
			slices.Sort(gated)
			if !slices.Equal(gated, tc.gated) {
				t.Errorf("gated cells %v, want %v", gated, tc.gated)
			}
			warnings := cmp.Workloads[0].Warnings
			if len(warnings) != len(tc.warnings) {
				t.Errorf("warnings %q, want %d matching %q", warnings, len(tc.warnings), tc.warnings)
			}
			for i := range min(len(warnings), len(tc.warnings)) {
				if !strings.Contains(warnings[i], tc.warnings[i]) {
					t.Errorf("warning %d %q, want it to contain %q", i, warnings[i], tc.warnings[i])
				}
			}
			if tc.kind == result.KindCommand {
				for _, w := range warnings {
					for _, id := range DefaultGated {
						if strings.Contains(w, id) {
							t.Errorf("command cell warns about serving metric %s: %q", id, w)
						}
					}
				}
			}
			if cmp.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s", cmp.Verdict, tc.verdict)
			}
		})
	}
}

// TestResolveCommandSpec pins that Resolve, which sees no files, still
// returns the policy's rules for a command spec: the narrowing to the
// metrics the files carry happens in Compare.
func TestResolveCommandSpec(t *testing.T) {
	p := oneSession()
	spec := commandSpec(result.KindCommand, result.GateRule{Metric: "offline_latency_ms.p50"})
	rules, err := p.Resolve(withSpec(&result.Result{}, spec).Workload.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if !rules["offline_latency_ms.p50"].Gated || !rules["ttft_ms.p50"].Gated {
		t.Fatalf("rules %+v", rules)
	}
}
