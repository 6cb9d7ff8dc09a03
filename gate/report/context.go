package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// contextItem is one server-side figure shown beside a regression.
type contextItem struct {
	key    string // key in result.Trial.Server
	label  string
	format func(float64) string
}

// serverItems are the /metrics figures that explain most regressions:
// preemptions and a full KV cache (memory pressure), queueing, the prefix
// cache, and the server's own latencies (which tell server time from
// client or network time). Keys are documented in docs/vllm.md.
var serverItems = []contextItem{
	{"vllm:num_preemptions_total.delta", "preemptions per trial", count},
	{"kv_cache_usage_perc.max", "KV cache max", fraction},
	{"num_requests_waiting.mean", "waiting requests (mean)", Number},
	{"prefix_cache_hit_rate", "prefix-cache hit rate", fraction},
	{"ttft_s.server_mean", "server TTFT mean", seconds},
	{"itl_s.server_mean", "server ITL mean", seconds},
	{"queue_time_s.server_mean", "server queue time mean", seconds},
}

func fraction(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }
func seconds(v float64) string  { return Number(1000*v) + " ms" }

// count shows whole numbers without decimals (a median of two counts may
// be a half).
func count(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return Number(v)
}

// maxTrialWarnings bounds the distinct trial warnings quoted per workload.
const maxTrialWarnings = 3

// serverContext is the context printed under a regressed or undecided
// workload's table: what the server's /metrics said in each arm (medians
// over valid trials) and the candidate's trial warnings, such as client
// TTFT far above the server's (a client or network bottleneck). It is ""
// when neither arm recorded any of it.
func serverContext(d *Data, cell string) string {
	b, c := d.Baselines[cell], d.Candidates[cell]
	var parts []string
	for _, it := range serverItems {
		bv, bok := serverMedian(b, it.key)
		cv, cok := serverMedian(c, it.key)
		if !bok && !cok {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s", it.label, figure(bv, bok, it.format), figure(cv, cok, it.format)))
	}
	var s strings.Builder
	if len(parts) > 0 {
		n := armsOf(d)
		fmt.Fprintf(&s, "\nServer `/metrics`, %s → %s: %s.\n", strings.ToLower(n.base), strings.ToLower(n.cand), strings.Join(parts, " · "))
	}
	s.WriteString(healthContext(d, cell))
	if warns := trialWarnings(c); len(warns) > 0 {
		fmt.Fprintf(&s, "\n%s trial warnings:\n", armsOf(d).cand)
		for _, w := range warns {
			fmt.Fprintf(&s, "- %s\n", Escape(w))
		}
	}
	return s.String()
}

// serverMedian is the median of a server figure over r's valid trials.
func serverMedian(r *result.Result, key string) (float64, bool) {
	if r == nil {
		return 0, false
	}
	var v []float64
	for _, t := range r.ValidTrials() {
		if x, ok := t.Server[key]; ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return metrics.MedianOf(v), true
}

func figure(v float64, ok bool, format func(float64) string) string {
	if !ok {
		return "–"
	}
	return format(v)
}

// trialWarnings lists the distinct warnings of r's trials, most frequent
// first, at most maxTrialWarnings of them with a count of the rest.
func trialWarnings(r *result.Result) []string {
	if r == nil {
		return nil
	}
	count := map[string]int{}
	for _, t := range r.Trials {
		for _, w := range t.Warnings {
			count[w]++
		}
	}
	ws := slices.SortedFunc(maps.Keys(count), func(a, b string) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), strings.Compare(a, b)) // most first
	})
	var out []string
	for i, w := range ws {
		if i == maxTrialWarnings {
			out = append(out, fmt.Sprintf("… and %d more kind(s) of warning", len(ws)-i))
			break
		}
		out = append(out, fmt.Sprintf("%s (%d of %d trials)", Truncate(w, 300), count[w], len(r.Trials)))
	}
	return out
}
