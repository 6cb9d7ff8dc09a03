package verdict

import (
	"reflect"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
)

func mustStat(t *testing.T, s string) metrics.Stat {
	t.Helper()
	st, ok := metrics.ParseStat(s)
	if !ok {
		t.Fatalf("ParseStat(%q) failed", s)
	}
	return st
}

func set(ids ...string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func TestFallbacks(t *testing.T) {
	for _, tc := range []struct {
		stat string
		have []string
		want []string
	}{
		{"p50", []string{"median", "mean", "p95"}, []string{"median", "mean"}},
		{"p50", []string{"mean", "p95", "std"}, []string{"mean"}},
		{"median", []string{"p50", "mean"}, []string{"p50", "mean"}},
		{"mean", []string{"p50"}, []string{"p50"}},
		// p99: p95 is 5x away in exceedance probability, p99.9 and p90
		// 10x; the tie goes to the higher percentile.
		{"p99", []string{"p90", "p99.9", "p95", "mean", "median"}, []string{"p95", "p99.9", "p90"}},
		{"p99", []string{"p90", "p99.9"}, []string{"p99.9", "p90"}},
		{"p99", []string{"p97", "p99.5"}, []string{"p99.5", "p97"}},
		{"p90", []string{"p99.9", "p99", "p95"}, []string{"p95", "p99", "p99.9"}},
		{"p99.9", []string{"p95", "p99", "p99.99"}, []string{"p99.99", "p99", "p95"}},
		// Not tail statistics: never a substitute for p99.
		{"p99", []string{"p75", "p50", "mean", "max", "p100"}, nil},
		{"p99", nil, nil},
		// Statistics without a principled substitute.
		{"std", []string{"mean", "p95"}, nil},
		{"p75", []string{"p50", "p90"}, nil},
		{"max", []string{"p99.9"}, nil},
		{"min", []string{"p50"}, nil},
	} {
		have := map[metrics.Stat]bool{}
		for _, h := range tc.have {
			have[mustStat(t, h)] = true
		}
		var got []string
		for _, s := range fallbacks(mustStat(t, tc.stat), have) {
			got = append(got, s.String())
		}
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("fallbacks(%s, %v) = %v, want %v", tc.stat, tc.have, got, tc.want)
		}
	}
}

// importedIDs are the metric ids of an imported `vllm bench serve` file
// that only saved mean and p95.
var importedIDs = []string{
	"ttft_ms.mean", "ttft_ms.p95", "e2el_ms.mean", "e2el_ms.p95",
	"output_throughput", "request_throughput", "success_rate",
}

func TestSubstitute(t *testing.T) {
	p := oneSession()
	defaults, err := p.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	with := func(extra ...Rule) map[string]Rule {
		m := map[string]Rule{}
		for id, r := range defaults {
			m[id] = r
		}
		for _, r := range extra {
			m[r.Metric] = r
		}
		return m
	}
	both := func(ids ...string) [2][]string { return [2][]string{ids, ids} }
	for _, tc := range []struct {
		name   string
		rules  map[string]Rule
		optOut []string
		arms   [2][]string // baseline ids, candidate ids
		want   []Substitution
	}{
		{"imported mean and p95", defaults, nil, both(importedIDs...), []Substitution{
			{"ttft_ms.p50", "ttft_ms.mean", 0.03}, {"ttft_ms.p99", "ttft_ms.p95", 0.06},
			{"e2el_ms.p50", "e2el_ms.mean", 0.03}, {"e2el_ms.p99", "e2el_ms.p95", 0.06},
		}},
		{"median preferred to mean", defaults, nil, both("tpot_ms.median", "tpot_ms.mean", "tpot_ms.p99"), []Substitution{
			{"tpot_ms.p50", "tpot_ms.median", 0.03},
		}},
		{"nothing missing", defaults, nil, both("ttft_ms.p50", "ttft_ms.p99", "ttft_ms.mean", "ttft_ms.p95"), nil},
		{"missing from one arm only is not substituted", defaults, nil,
			[2][]string{{"ttft_ms.p99", "ttft_ms.p95"}, {"ttft_ms.p95"}}, nil},
		{"substitute in one arm only is not used", defaults, nil,
			[2][]string{{"ttft_ms.p95", "ttft_ms.p90"}, {"ttft_ms.p90"}}, []Substitution{{"ttft_ms.p99", "ttft_ms.p90", 0.06}}},
		{"already gated substitute is not gated twice", with(Rule{"ttft_ms.p95", true, 0.10}), nil,
			both("ttft_ms.p95", "ttft_ms.p99.9"), []Substitution{{"ttft_ms.p99", "ttft_ms.p99.9", 0.06}}},
		{"already gated and nothing else", with(Rule{"ttft_ms.p95", true, 0.10}), nil, both("ttft_ms.p95"), nil},
		{"workload gated:false wins", defaults, []string{"ttft_ms.p95"},
			both("ttft_ms.p95", "ttft_ms.p90"), []Substitution{{"ttft_ms.p99", "ttft_ms.p90", 0.06}}},
		{"configured tolerance of the substitute wins", with(Rule{"ttft_ms.p95", false, 0.08}), nil,
			both("ttft_ms.p95"), []Substitution{{"ttft_ms.p99", "ttft_ms.p95", 0.08}}},
		{"missing statistic's own tolerance is inherited", with(Rule{"ttft_ms.p99", true, 0.10}), nil,
			both("ttft_ms.p95"), []Substitution{{"ttft_ms.p99", "ttft_ms.p95", 0.10}}},
		{"two missing statistics, one substitute", with(Rule{"ttft_ms.p99.9", true, 0.12}), nil,
			both("ttft_ms.p95"), []Substitution{{"ttft_ms.p99", "ttft_ms.p95", 0.06}}},
		// Missing statistics are served in report order: median before p50.
		{"p50 and median missing, one mean", with(Rule{"tpot_ms.median", true, 0.04}), nil,
			both("tpot_ms.mean"), []Substitution{{"tpot_ms.median", "tpot_ms.mean", 0.04}}},
		{"ungated missing statistic is not substituted", with(Rule{"ttft_ms.p99", false, 0.06}), nil,
			both("ttft_ms.p95"), nil},
		{"no tail statistic for p99", defaults, nil, both("ttft_ms.mean", "ttft_ms.max"), []Substitution{
			{"ttft_ms.p50", "ttft_ms.mean", 0.03},
		}},
		{"scalar metrics have no substitute", defaults, nil, both("total_token_throughput"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.rules)
			got, subs := substitute(tc.rules, set(tc.optOut...), set(tc.arms[0]...), set(tc.arms[1]...))
			if len(subs) == 0 && len(tc.want) == 0 {
				subs = nil
			}
			if !reflect.DeepEqual(subs, tc.want) {
				t.Fatalf("substitutions %v, want %v", subs, tc.want)
			}
			if len(tc.rules) != before {
				t.Errorf("input rules modified")
			}
			gatedAsSub := map[string]int{}
			for _, s := range subs {
				gatedAsSub[s.Metric]++
				if r := got[s.Metric]; !r.Gated || r.Tolerance != s.Tolerance {
					t.Errorf("rule of %s is %+v, want gated with %v", s.Metric, r, s.Tolerance)
				}
				if tc.rules[s.Metric].Gated || gatedAsSub[s.Metric] > 1 {
					t.Errorf("%s gated twice", s.Metric)
				}
			}
			for id, r := range tc.rules {
				if gatedAsSub[id] == 0 && got[id] != r {
					t.Errorf("rule of %s changed from %+v to %+v", id, r, got[id])
				}
			}
		})
	}
}

// TestSubstituteWorkloadOptOut: a workload's `gated: false` reaches the
// substitution through Compare, and the cell that is gated instead
// carries its footnote and Substitutes.
func TestSubstituteWorkloadOptOut(t *testing.T) {
	b, c := importedPair(1, 3, 3, 1.25)
	off := false
	for _, r := range append(b, c...) {
		withSpec(r, map[string]any{"kind": "vllm-bench", "gate": []map[string]any{{"metric": "ttft_ms.p95", "gated": off}}})
	}
	cmp := mustCompare(t, b, c, oneSession())
	if cell := cellOf(cmp, "chat", "ttft_ms.p95"); cell == nil || cell.Gated {
		t.Fatalf("ttft_ms.p95 turned off by the workload but gated: %v", cell)
	}
	mean := cellOf(cmp, "chat", "ttft_ms.mean")
	if mean == nil || !mean.Gated || mean.Substitutes != "ttft_ms.p50" || mean.Outcome != Regression {
		t.Fatalf("ttft_ms.mean: %v", mean)
	}
	if mean.Warnings[0] != "ttft_ms.p50 not in the files; ttft_ms.mean gated instead" {
		t.Errorf("footnote %q", mean.Warnings[0])
	}
	if !hasWarning(cmp.Workloads[0].Warnings, "ttft_ms.p99 is in neither run and no statistic") {
		t.Errorf("no warning for the unsubstituted p99: %q", cmp.Workloads[0].Warnings)
	}
}
