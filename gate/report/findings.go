package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/verdict"
)

// This file renders the comparison's explanation (verdict.Explanation,
// computed by gate/explain): the findings right under the headline, and,
// collapsed, the phase split and server figures of each regressed
// workload. It computes nothing; every number is the explanation's.

// maxFindingNames bounds the workloads and metrics a finding names inline.
const maxFindingNames = 4

// findings writes the findings as markdown (md) or terminal text: the one
// list both forms show, with the markdown's pointer to the details below;
// "" when the comparison carries no explanation or it found nothing to say.
func findings(d *Data, md bool) string {
	e := d.Comparison.Explanation
	if e == nil {
		return ""
	}
	var b strings.Builder
	if len(e.Findings) > 0 {
		if md {
			fmt.Fprintf(&b, "\n**Why it regressed** (%s; %.0f %% intervals, details below):\n\n", causeCount(e), 100*e.CILevel)
		} else {
			fmt.Fprintf(&b, "Why it regressed (%s; %.0f %% intervals):\n", causeCount(e), 100*e.CILevel)
		}
		for _, f := range e.Findings {
			fmt.Fprintf(&b, "- %s\n", findingSentence(f, len(e.Workloads), armsOf(d), md))
		}
	}
	if k := kernelsLineIn(d, md); k != "" {
		if md {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n", k)
	}
	return b.String()
}

// causeCount says how many causes the findings name.
func causeCount(e *verdict.Explanation) string {
	if len(e.Findings) == 1 && e.Findings[0].Phase != verdict.PhaseNone {
		return "one cause"
	}
	return fmt.Sprintf("%d findings", len(e.Findings))
}

// phaseWords are the reader's names of a carrier and of what its change
// range measures.
var phaseWords = map[verdict.Phase][2]string{
	verdict.PhaseQueue:   {"Server queue", "time waiting in the server's queue"},
	verdict.PhasePrefill: {"Prefill", "prefill time (TTFT minus the server queue)"},
	verdict.PhaseDecode:  {"Decode", "time per output token"},
	verdict.PhaseLength:  {"Output length", "output tokens per request (each token as fast as before)"},
	verdict.PhaseNone:    {"No phase", ""},
}

// findingSentence is one finding in words. md escapes the names for
// markdown and bolds the carrier; otherwise the text is plain.
func findingSentence(f verdict.Finding, regressed int, n arms, md bool) string {
	name := func(s string) string {
		if md {
			return Escape(s)
		}
		return plain(s)
	}
	words := phaseWords[f.Phase]
	carrier := words[0]
	if md {
		carrier = "**" + carrier + "**"
	}
	var b strings.Builder
	scope := fmt.Sprintf("%d of %d", len(f.Workloads), regressed)
	if len(f.Workloads) == regressed {
		switch regressed {
		case 1:
			scope = "the"
		case 2:
			scope = "both"
		default:
			scope = fmt.Sprintf("all %d", regressed)
		}
	}
	fmt.Fprintf(&b, "%s carries the change in %s regressed workload%s (%s)", carrier, scope, plural(regressed), names(f.Workloads, name))
	if f.Phase == verdict.PhaseNone {
		b.WriteString(": no phase got slower beyond its interval, so the regression is in a tail percentile or a rate, not in the median request's latency")
	} else {
		fmt.Fprintf(&b, ": %s %s", words[1], spanPercent(f.ChangeLow, f.ChangeHigh))
		switch {
		case f.Shared == 0:
			b.WriteString(", while E2EL p50 stayed within its interval")
		case f.Shared < len(f.Workloads):
			fmt.Fprintf(&b, ", %s of the E2EL change where E2EL moved (%d of %d)", spanShare(f.ShareLow, f.ShareHigh), f.Shared, len(f.Workloads))
		default:
			fmt.Fprintf(&b, ", %s of the E2EL change", spanShare(f.ShareLow, f.ShareHigh))
		}
	}
	if len(f.Unchanged) > 0 {
		var ph []string
		for _, p := range f.Unchanged {
			ph = append(ph, strings.ToLower(phaseWords[p][0]))
		}
		fmt.Fprintf(&b, "; %s unchanged", strings.Join(ph, " and "))
	}
	var labels []string
	seen := map[string]bool{}
	for _, c := range f.Cells {
		l := metrics.Label(c[strings.LastIndex(c, "/")+1:])
		if !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	if f.Phase == verdict.PhaseNone {
		fmt.Fprintf(&b, ". Regressed: %s.", names(labels, name))
	} else {
		verb := "follow"
		if len(f.Cells) == 1 {
			verb = "follows"
		}
		fmt.Fprintf(&b, ". %d regressed metric%s %s: %s.", len(f.Cells), plural(len(f.Cells)), verb, names(labels, name))
	}
	var moved []string
	for _, c := range f.Counters {
		moved = append(moved, fmt.Sprintf("%s %s → %s", counterLabel(c.Key), counterValue(c.Key, c.Baseline), counterValue(c.Key, c.Candidate)))
	}
	if len(moved) > 0 {
		fmt.Fprintf(&b, " Server `/metrics` beyond their trial spread, %s → %s: %s.", strings.ToLower(n.base), strings.ToLower(n.cand), strings.Join(moved, " · "))
		if !md {
			return strings.ReplaceAll(b.String(), "`", "")
		}
	}
	return b.String()
}

// names lists at most maxFindingNames of xs, then how many more.
func names(xs []string, esc func(string) string) string {
	var out []string
	for i, x := range xs {
		if i == maxFindingNames {
			out = append(out, fmt.Sprintf("and %d more", len(xs)-i))
			break
		}
		out = append(out, esc(x))
	}
	return strings.Join(out, ", ")
}

// spanPercent is "+13.0 %" or "+13.0 to +14.2 %".
func spanPercent(lo, hi float64) string {
	if math.Abs(hi-lo) < 0.05 {
		return Percent(lo)
	}
	return Range(lo, hi)
}

// spanShare is "96 %" or "79 to 90 %".
func spanShare(lo, hi float64) string {
	if math.Round(lo) == math.Round(hi) {
		return fmt.Sprintf("%.0f %%", lo)
	}
	return fmt.Sprintf("%.0f to %.0f %%", lo, hi)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// counterLabels name the server figures of gate/server/scrape's keys.
var counterLabels = map[string]string{
	"vllm:num_preemptions_total.delta":   "preemptions per trial",
	"kv_cache_usage_perc.mean":           "KV cache mean",
	"kv_cache_usage_perc.max":            "KV cache max",
	"num_requests_running.mean":          "running requests (mean)",
	"num_requests_waiting.mean":          "waiting requests (mean)",
	"prefix_cache_hit_rate":              "prefix-cache hit rate",
	"vllm:prompt_tokens_total.delta":     "prompt tokens per trial",
	"vllm:generation_tokens_total.delta": "generated tokens per trial",
	"iteration_tokens.server_mean":       "tokens per engine step (mean)",
	"spec_decode_acceptance_rate":        "spec-decode acceptance",
	"queue_time_s.server_mean":           "server queue time mean",
	"ttft_s.server_mean":                 "server TTFT mean",
	"tpot_s.server_mean":                 "server TPOT mean",
	"itl_s.server_mean":                  "server ITL mean",
	"prefill_time_s.server_mean":         "server prefill time mean",
	"decode_time_s.server_mean":          "server decode time mean",
}

func counterLabel(key string) string {
	if l, ok := counterLabels[key]; ok {
		return l
	}
	return key
}

// counterValue formats a server figure by its kind: seconds as ms,
// fractions as percent, counts whole.
func counterValue(key string, v float64) string {
	switch {
	case strings.HasSuffix(key, "_s.server_mean"):
		return seconds(v)
	case strings.HasPrefix(key, "kv_cache_usage_perc"), key == "prefix_cache_hit_rate", key == "spec_decode_acceptance_rate":
		return fraction(v)
	case strings.HasSuffix(key, ".delta"):
		return count(v)
	}
	return Number(v)
}
