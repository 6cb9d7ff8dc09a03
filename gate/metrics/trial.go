package metrics

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/gate/result"
)

// SLO holds goodput thresholds in ms; zero fields are not checked. It
// mirrors workload.SLO (package workload imports this one, so it cannot be
// imported here); callers convert with SLO(m.SLO).
type SLO struct {
	TTFTms float64
	TPOTms float64
	E2ELms float64
}

// Set reports whether any threshold is set.
func (s SLO) Set() bool { return s.TTFTms > 0 || s.TPOTms > 0 || s.E2ELms > 0 }

// ErrorSampleBytes is how much of an error body a trial keeps per type.
const ErrorSampleBytes = 512

// Accumulator builds one trial's summary from finished requests. Add is
// safe for concurrent use; memory grows with the samples kept for exact
// percentiles (4 bytes per request per distribution, 4 per chunk gap, plus
// 4 more per gap when chunks carry several tokens), never with request
// bodies or per-request objects.
type Accumulator struct {
	mu    sync.Mutex
	slo   SLO
	dists map[string]*dist
	lag   *dist

	completed, failed int
	good              int
	inTokens          int64
	outTokens         int64
	chunks            int64
	errors            map[string]int
	samples           map[string]string
	peak              peakRate
	spans             []span
	checks            consistency
	methods           tokenCounts
	// extra are percentiles recorded besides Stats (Percentiles).
	extra []Stat
}

// Percentiles makes the trial also record the p-th percentile of every
// distribution for each p of ps (0 < p < 100): a workload's
// metric_percentiles, vLLM's --metric-percentiles. Percentiles Stats
// already holds are recorded once. Call it before the first Add.
func (a *Accumulator) Percentiles(ps ...float64) *Accumulator {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range ps {
		st := Pct(p)
		if !(p > 0 && p < 100) || containsStat(Stats, st) || containsStat(a.extra, st) {
			continue
		}
		a.extra = append(a.extra, st)
	}
	return a
}

func containsStat(list []Stat, st Stat) bool {
	for _, s := range list {
		if s == st {
			return true
		}
	}
	return false
}

type span struct{ start, end time.Duration }

// consistency counts requests whose numbers contradict each other.
type consistency struct {
	ignoreEOS, ignoreEOSOf int
	firstIgnoreEOS         string
	// eosStops counts the ignore_eos requests that came back short with
	// finish_reason "stop": the server stopped at EOS, so it does not
	// honour ignore_eos (a clamped max_tokens ends with "length").
	eosStops     int
	firstEOSStop string
	bad          int
	firstBad     string
}

// NewAccumulator returns an accumulator judging goodput by slo. limit is
// the exact-sample limit per distribution (0: DefaultExactLimit).
func NewAccumulator(slo SLO, limit int) *Accumulator {
	if limit <= 0 {
		limit = DefaultExactLimit
	}
	a := &Accumulator{
		slo:     slo,
		dists:   map[string]*dist{},
		lag:     newDist(true, limit),
		errors:  map[string]int{},
		samples: map[string]string{},
		peak:    peakRate{limit: limit},
	}
	for _, d := range Distributions {
		a.dists[d.Name] = newDist(true, limit)
	}
	return a
}

// Add records one finished request. Failed requests count toward failures
// and errors only, as in vLLM: their partial latencies would flatter the
// server.
func (a *Accumulator) Add(r *Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lag.add(ms(r.DispatchLag), 1)
	if !r.Success {
		a.failed++
		t := r.ErrorType
		if t == "" {
			t = "unknown"
		}
		a.errors[t]++
		if _, ok := a.samples[t]; !ok && r.ErrorBody != "" {
			a.samples[t] = truncate(r.ErrorBody, ErrorSampleBytes)
		}
		return
	}
	a.completed++
	a.inTokens += int64(r.InputTokens)
	a.outTokens += int64(r.OutputTokens)
	a.chunks += int64(r.Chunks)
	a.methods.add(r.Tokens)
	a.check(r)

	ttft, e2el := r.TTFT(), r.E2EL()
	tpot, hasTPOT := r.TPOT()
	a.dists["ttft_ms"].add(ttft, 1)
	a.dists["e2el_ms"].add(e2el, 1)
	a.dists["client_queue_ms"].add(ms(r.Sent-r.Intended), 1)
	a.dists["e2el_from_intended_ms"].add(ms(r.LastToken-r.Intended), 1)
	if hasTPOT {
		a.dists["tpot_ms"].add(tpot, 1)
	}
	itl, itlTok := a.dists["itl_ms"], a.dists["itl_token_ms"]
	for i, g := range r.Gaps {
		itl.add(float64(g), 1)
		k := 1
		if r.GapTokens != nil {
			k = int(r.GapTokens[i])
		}
		// A chunk of k tokens after a gap g stands for k tokens spaced g/k
		// apart, so per-token samples sum to e2el - ttft like chunk gaps do.
		if k > 0 {
			itlTok.add(float64(g)/float64(k), k)
		}
	}
	if a.slo.Set() && meets(a.slo, ttft, tpot, e2el) {
		a.good++
	}
	a.peak.add(r)
	a.spans = append(a.spans, span{r.Sent, r.LastToken})
}

// meets is vLLM's goodput test: every set SLO holds with measured <= slo
// (tpot counts as 0 for single-token requests).
func meets(s SLO, ttft, tpot, e2el float64) bool {
	return (s.TTFTms <= 0 || ttft <= s.TTFTms) &&
		(s.TPOTms <= 0 || tpot <= s.TPOTms) &&
		(s.E2ELms <= 0 || e2el <= s.E2ELms)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// check looks for requests whose numbers contradict each other: signs of a
// broken server or client, which make every derived metric meaningless.
func (a *Accumulator) check(r *Request) {
	if r.IgnoreEOS && r.MaxTokens > 0 {
		a.checks.ignoreEOSOf++
		switch {
		case r.OutputTokens < r.MaxTokens && r.Finish == "stop":
			a.checks.eosStops++
			if a.checks.firstEOSStop == "" {
				a.checks.firstEOSStop = fmt.Sprintf("got %d tokens for max_tokens %d, finish_reason \"stop\"", r.OutputTokens, r.MaxTokens)
			}
		case r.OutputTokens != r.MaxTokens:
			a.checks.ignoreEOS++
			if a.checks.firstIgnoreEOS == "" {
				a.checks.firstIgnoreEOS = fmt.Sprintf("got %d tokens for max_tokens %d", r.OutputTokens, r.MaxTokens)
			}
		}
	}
	bad := func(format string, args ...any) {
		a.checks.bad++
		if a.checks.firstBad == "" {
			a.checks.firstBad = fmt.Sprintf(format, args...)
		}
	}
	sum := 0.0
	for _, g := range r.Gaps {
		sum += float64(g)
	}
	span := ms(r.LastToken - r.FirstToken)
	switch {
	case r.Sent < r.Intended || r.FirstToken < r.Sent || r.LastToken < r.FirstToken:
		bad("timestamps out of order (intended %v, sent %v, first token %v, last token %v)", r.Intended, r.Sent, r.FirstToken, r.LastToken)
	case len(r.Gaps) != max(r.Chunks-1, 0):
		bad("%d chunk gaps for %d token messages", len(r.Gaps), r.Chunks)
	case math.Abs(sum-span) > 0.01+1e-4*span:
		bad("chunk gaps sum to %.3f ms but e2el - ttft is %.3f ms", sum, span)
	case r.MaxTokens > 0 && r.OutputTokens > r.MaxTokens:
		bad("server reported %d output tokens for max_tokens %d", r.OutputTokens, r.MaxTokens)
	case r.Chunks > r.OutputTokens+2:
		// Every token message carries at least one token, except a chat
		// role-only opening chunk and a trailing finish_reason chunk.
		bad("%d token messages but the server reported %d output tokens", r.Chunks, r.OutputTokens)
	case r.GapTokens != nil && sumTokens(r) != r.OutputTokens:
		bad("tokens per chunk sum to %d but the server reported %d", sumTokens(r), r.OutputTokens)
	}
}

func sumTokens(r *Request) int {
	n := r.FirstChunkTokens
	for _, k := range r.GapTokens {
		n += int(k)
	}
	return n
}

// Finish computes the trial's values and judges its validity against
// limits. duration is the benchmark duration (first dispatch to last
// completion); gpus normalises the per-GPU throughputs (0: omitted). The
// Accumulator must not be used afterwards.
func (a *Accumulator) Finish(duration time.Duration, gpus int, limits Limits) result.Trial {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := result.Trial{
		DurationS:  duration.Seconds(),
		Completed:  a.completed,
		Failed:     a.failed,
		Values:     map[string]float64{},
		Histograms: map[string]string{},
	}
	if len(a.errors) > 0 {
		t.Errors = a.errors
	}
	if len(a.samples) > 0 {
		t.ErrorSamples = a.samples
	}
	for _, d := range Distributions {
		dd := a.dists[d.Name]
		if dd.dropped {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s: more than %d samples; percentiles come from the histogram (0.1%% relative error)", d.Name, dd.limit))
		}
		for st, v := range dd.summary(a.extra...) {
			t.Values[ID{d.Name, st}.String()] = v
		}
		if enc, err := encodeHist(dd.hist); err == nil {
			t.Histograms[d.Name] = enc
		}
	}
	dur := duration.Seconds()
	rate := func(x float64) float64 {
		if dur <= 0 {
			return 0
		}
		return x / dur
	}
	v := t.Values
	v["completed"] = float64(a.completed)
	v["failed"] = float64(a.failed)
	v["total_input_tokens"] = float64(a.inTokens)
	v["total_output_tokens"] = float64(a.outTokens)
	v["duration_s"] = dur
	v["request_throughput"] = rate(float64(a.completed))
	v["output_throughput"] = rate(float64(a.outTokens))
	v["total_token_throughput"] = rate(float64(a.inTokens + a.outTokens))
	if total := a.completed + a.failed; total > 0 {
		v["success_rate"] = float64(a.completed) / float64(total)
		if a.slo.Set() {
			v["goodput_ratio"] = float64(a.good) / float64(total)
		}
	} else {
		v["success_rate"] = 0
	}
	if a.slo.Set() {
		v["request_goodput"] = rate(float64(a.good))
		if _, ok := v["goodput_ratio"]; !ok {
			v["goodput_ratio"] = 0
		}
	}
	DeriveRates(v, gpus)
	peak, warn := a.peak.peak()
	if warn != "" {
		t.Warnings = append(t.Warnings, warn)
	}
	v["max_output_tokens_per_s"] = peak
	v["max_concurrent_requests"] = float64(peakConcurrency(a.spans))
	v["dispatch_lag_ms.p99"] = a.lag.summary()[Pct(99)]
	t.Tokens = a.methods.trialCounting(a.outTokens, a.chunks)
	t.Warnings = append(t.Warnings, tokenWarnings(&t, dur)...)
	t.Valid, t.InvalidReason = a.judge(&t, limits)
	return t
}

func encodeHist(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

// DecodeHistogram decodes a histogram of result.Trial.Histograms. Merge
// histograms of several trials with (*hdr.Histogram).Merge: they share one
// geometry.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// peakConcurrency sweeps the half-open intervals [start, end): an end and a
// start at the same instant do not overlap.
func peakConcurrency(spans []span) int {
	type edge struct {
		t time.Duration
		d int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		if s.end <= s.start {
			continue // zero-length: never in flight
		}
		edges = append(edges, edge{s.start, 1}, edge{s.end, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].d < edges[j].d
	})
	cur, peak := 0, 0
	for _, e := range edges {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}
