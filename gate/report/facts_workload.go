package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// workloadFacts is one workload's shape, request outcomes, latency
// percentiles and throughput, baseline vs candidate (medians over valid
// trials).
func workloadFacts(d *Data, cell string) string {
	b, c := d.Baselines[cell], d.Candidates[cell]
	if b == nil && c == nil {
		return ""
	}
	var s strings.Builder
	n := armsOf(d)
	fmt.Fprintf(&s, "\n**%s**\n\n| | %s | %s |\n|---|--:|--:|\n", Escape(cell), n.base, n.cand)
	row := func(name string, get func(*result.Result) string) {
		fmt.Fprintf(&s, "| %s | %s | %s |\n", name, factOf(b, get), factOf(c, get))
	}
	row("Workload shape", shape)
	row("Warmup requests per trial", func(r *result.Result) string { return strconv.Itoa(r.Warmups) })
	row("Trials valid / run", func(r *result.Result) string {
		s := fmt.Sprintf("%d / %d", len(r.ValidTrials()), len(r.Trials))
		if !r.Complete {
			s += " (incomplete: " + r.IncompleteReason + ")"
		}
		return s
	})
	row("Requests succeeded / failed", func(r *result.Result) string {
		ok, failed := 0, 0
		for _, t := range r.Trials {
			ok += t.Completed
			failed += t.Failed
		}
		return fmt.Sprintf("%d / %d", ok, failed)
	})
	row("Error types", errorTypes)
	if (b != nil && tokenCounting(b) != "") || (c != nil && tokenCounting(c) != "") {
		row("Token counting", tokenCounting) // results before issue 11 have none
	}
	pcts := []metrics.Stat{metrics.Pct(50), metrics.Pct(90), metrics.Pct(95), metrics.Pct(99)}
	for _, dist := range []string{"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"} {
		label := strings.Fields(metrics.Label(metrics.ID{Base: dist, Stat: pcts[0]}.String()))[0]
		row(label+" p50 / p90 / p95 / p99", func(r *result.Result) string {
			var vs []string
			for _, p := range pcts {
				vs = append(vs, medianValue(r, metrics.ID{Base: dist, Stat: p}.String()))
			}
			if strings.Trim(strings.Join(vs, ""), "–") == "" {
				return ""
			}
			return strings.Join(vs, " / ") + " ms"
		})
	}
	for _, id := range []string{"qpm", "tpm", "output_throughput", "total_token_throughput", "request_goodput"} {
		m := metrics.MustLookup(id)
		row(m.ID+" ("+m.Unit+")", func(r *result.Result) string { return strings.Trim(medianValue(r, id), "–") })
	}
	fmt.Fprintf(&s, "| Raw JSON | %s | %s |\n", pathCell(shownPath(d, d.BaselinePaths[cell])), pathCell(shownPath(d, d.ResultPaths[cell])))
	return s.String()
}

func pathCell(p string) string {
	if p == "" {
		return "not recorded"
	}
	return Code(p)
}

// factOf applies get to r, escaping the result ("–" when r is nil).
func factOf(r *result.Result, get func(*result.Result) string) string {
	if r == nil {
		return "–"
	}
	return factCell(get(r))
}

// shape describes the workload as run: requests per trial, mean token
// lengths, and the load point from the workload spec when it has one.
func shape(r *result.Result) string {
	var parts []string
	if len(r.Trials) > 0 {
		t := r.Trials[0]
		parts = append(parts, fmt.Sprintf("%d requests", t.Completed+t.Failed))
		if t.Completed > 0 {
			in, out := t.Values["total_input_tokens"], t.Values["total_output_tokens"]
			if in > 0 || out > 0 {
				parts = append(parts, fmt.Sprintf("%.0f in / %.0f out tokens", in/float64(t.Completed), out/float64(t.Completed)))
			}
		}
	}
	if spec, err := r.Workload.ParseSpec(); err == nil {
		if l, ok := spec.Shape(); ok {
			conc := "unlimited"
			if l.Concurrency > 0 {
				conc = strconv.Itoa(l.Concurrency)
			}
			rate := "rate " + result.FormatRate(l.Rate)
			if r := l.RampUp; r != nil { // vLLM records rate inf beside a ramp
				rate = fmt.Sprintf("rate %s ramp %s to %s", r.Strategy, result.FormatRate(r.StartRPS), result.FormatRate(r.EndRPS))
			}
			parts = append(parts, "concurrency "+conc, rate)
		}
	}
	return strings.Join(parts, ", ")
}

// tokenCounting says how the trials counted each chunk's tokens (the
// methods of docs/metrics.md), whether itl_token_ms is approximated, and
// the mean tokens per chunk; "" for results that did not record it.
func tokenCounting(r *result.Result) string {
	methods := map[string]int{}
	var perChunk []float64
	approx := false
	for _, t := range r.Trials {
		if t.Tokens == nil {
			continue
		}
		methods[t.Tokens.Method]++
		perChunk = append(perChunk, t.Tokens.TokensPerChunk)
		approx = approx || t.Tokens.ITLTokenApprox
	}
	if len(perChunk) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(methods))
	s := strings.Join(names, ", ")
	if approx {
		s += " (itl_token_ms approximated)"
	}
	return s + fmt.Sprintf(", %.1f tokens per chunk", metrics.MedianOf(perChunk))
}

// errorTypes sums the failed requests by type over all trials.
func errorTypes(r *result.Result) string {
	sum := map[string]int{}
	for _, t := range r.Trials {
		for k, n := range t.Errors {
			sum[k] += n
		}
	}
	if len(sum) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(sum))
	var parts []string
	for _, k := range keys {
		p := fmt.Sprintf("%s × %d", k, sum[k])
		for _, t := range r.Trials {
			if sample := t.ErrorSamples[k]; sample != "" {
				p += ": " + Truncate(redact.Text(sample), 120)
				break
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// medianValue is the median over valid trials of metric id, formatted.
func medianValue(r *result.Result, id string) string {
	v := r.Samples(id)
	if len(v) == 0 {
		return "–"
	}
	return Number(metrics.MedianOf(v))
}
