package metrics

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// Limits decide when a trial is invalid: kept in the result with its
// reason, but excluded from verdicts and baselines.
type Limits struct {
	// FailureShare is the largest tolerated share of failed requests.
	FailureShare float64
	// DispatchLagMs is the largest tolerated p99 of the client's dispatch
	// lag. Above it the client, not the server, set the pace, and TTFT is
	// inflated by the client's own queueing.
	DispatchLagMs float64
	// MaxTokensPerChunk is the largest tolerated mean of output tokens per
	// token message (0: not checked); see DefaultMaxTokensPerChunk.
	MaxTokensPerChunk float64
}

// DefaultLimits: 1 % failures (the default) and 10 ms of dispatch
// lag at p99, which is a tenth of a typical TTFT target and far above what
// a healthy Go client shows (tens of microseconds).
// Chunks may carry DefaultMaxTokensPerChunk tokens on average.
var DefaultLimits = Limits{FailureShare: 0.01, DispatchLagMs: 10, MaxTokensPerChunk: DefaultMaxTokensPerChunk}

// judge applies the validity rules to a finished trial. Every broken rule
// is named, so a reader sees all the reasons at once.
func (a *Accumulator) judge(t *result.Trial, l Limits) (bool, string) {
	var why []string
	total := a.completed + a.failed
	switch {
	case total == 0:
		why = append(why, "no requests finished")
	case a.completed == 0:
		why = append(why, fmt.Sprintf("every request failed (%s)", quotedSummary(a.errors, a.samples)))
	case float64(a.failed)/float64(total) > l.FailureShare:
		why = append(why, fmt.Sprintf("%d of %d requests failed (%.1f%% > %.1f%%; %s)",
			a.failed, total, 100*float64(a.failed)/float64(total), 100*l.FailureShare, quotedSummary(a.errors, a.samples)))
	}
	if a.checks.ignoreEOS > 0 {
		why = append(why, fmt.Sprintf("%d of %d ignore_eos requests came back with a different token count than max_tokens (e.g. %s): the server clamped or ignored max_tokens",
			a.checks.ignoreEOS, a.checks.ignoreEOSOf, a.checks.firstIgnoreEOS))
	}
	if a.checks.eosStops > 0 {
		why = append(why, fmt.Sprintf("%d of %d ignore_eos requests stopped at EOS before max_tokens (e.g. %s): %s",
			a.checks.eosStops, a.checks.ignoreEOSOf, a.checks.firstEOSStop, EOSRemedy))
	}
	if lag := t.Values["dispatch_lag_ms.p99"]; l.DispatchLagMs > 0 && lag > l.DispatchLagMs {
		why = append(why, fmt.Sprintf("client saturated: dispatch lag p99 %.2f ms > %.2f ms", lag, l.DispatchLagMs))
	}
	if why1 := tokensPerChunkReason(t, l); why1 != "" {
		why = append(why, why1)
	}
	if a.checks.bad > 0 {
		why = append(why, fmt.Sprintf("%d requests with inconsistent metrics (e.g. %s)", a.checks.bad, a.checks.firstBad))
	}
	if peak := t.Values["max_output_tokens_per_s"]; peak > float64(a.chunks) {
		why = append(why, fmt.Sprintf("peak output rate %.0f tok/s exceeds the %d token messages received", peak, a.chunks))
	}
	if tp, e := t.Values["tpot_ms.max"], t.Values["e2el_ms.max"]; tp > e {
		why = append(why, fmt.Sprintf("max TPOT %.3f ms exceeds max E2EL %.3f ms", tp, e))
	}
	// A value no measurement can reach (a server's usage claiming 9e18
	// tokens) would make the result file unwritable (result.MaxValue):
	// drop it and say so, so the trial's other numbers are still recorded.
	var absurd []string
	for id, v := range t.Values {
		if v > result.MaxValue || v < -result.MaxValue {
			absurd = append(absurd, fmt.Sprintf("%s = %g", id, v))
			delete(t.Values, id)
		}
	}
	if len(absurd) > 0 {
		sort.Strings(absurd)
		why = append(why, fmt.Sprintf("impossible values dropped (beyond %g): %s", result.MaxValue, strings.Join(absurd, ", ")))
	}
	if len(why) == 0 {
		return true, ""
	}
	return false, strings.Join(why, "; ")
}

// EOSRemedy names the cause and the remedy of ignore_eos requests that
// stopped at EOS: the server does not honour ignore_eos (ollama and TGI
// have no such option), so output lengths follow the model, not the
// workload, and a change in the model's text would read as a change in
// speed.
const EOSRemedy = "the server does not honour ignore_eos; set `sampling.ignore_eos: false` in the workload " +
	"(output lengths then follow the model), or use an engine that honours it (vLLM, SGLang, llama.cpp)"

// errorSummary lists error counts by type, most frequent first.
func errorSummary(errs map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range errs {
		l = append(l, kv{k, v})
	}
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && (l[j].v > l[j-1].v || l[j].v == l[j-1].v && l[j].k < l[j-1].k); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = fmt.Sprintf("%s: %d", e.k, e.v)
	}
	return strings.Join(parts, ", ")
}
