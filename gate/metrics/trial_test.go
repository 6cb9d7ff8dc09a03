package metrics

import (
	"math"
	"strings"
	"testing"
	"time"
)

const msec = time.Millisecond

// req builds a successful request from ms offsets and chunk gaps; the last
// token time follows from the gaps, as it does on the wire.
func req(intended, sent, ttft float64, gaps []float32, in, out int) *Request {
	at := func(x float64) time.Duration { return time.Duration(x * float64(msec)) }
	last := sent + ttft
	for _, g := range gaps {
		last += float64(g)
	}
	return &Request{
		Intended: at(intended), Sent: at(sent), FirstToken: at(sent + ttft), LastToken: at(last), Done: at(last + 1),
		Success: true, InputTokens: in, OutputTokens: out, MaxTokens: out, Chunks: len(gaps) + 1, Gaps: gaps,
	}
}

func checkDist(t *testing.T, values map[string]float64, dist string, samples []float64) {
	t.Helper()
	want := Summarize(append([]float64(nil), samples...))
	for st, w := range want {
		id := ID{dist, st}.String()
		got, ok := values[id]
		if !ok {
			t.Errorf("%s missing", id)
			continue
		}
		if math.Abs(got-w) > 1e-5*math.Max(1, math.Abs(w)) {
			t.Errorf("%s = %v, want %v (samples %v)", id, got, w, samples)
		}
	}
}

func checkScalar(t *testing.T, values map[string]float64, id string, want float64) {
	t.Helper()
	got, ok := values[id]
	if !ok {
		t.Errorf("%s missing", id)
		return
	}
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", id, got, want)
	}
}

// TestTrialFormulas works each metric out by vLLM's formulas on a small
// hand-made trial: three successes, one failure, an SLO and 2 GPUs.
func TestTrialFormulas(t *testing.T) {
	acc := NewAccumulator(SLO{TTFTms: 500}, 0)
	r1 := req(0, 0, 100, []float32{10, 20, 30}, 10, 4) // tokens at 100,110,130,160
	r2 := req(50, 70, 100, []float32{40}, 20, 2)       // queued 20 ms; tokens at 170, 210
	r3 := req(100, 100, 1000, nil, 5, 1)               // one token at 1100: no TPOT, misses SLO
	r4 := &Request{Intended: 150 * msec, Sent: 150 * msec, ErrorType: "http_503", ErrorBody: "overloaded"}
	for _, r := range []*Request{r1, r2, r3, r4} {
		acc.Add(r)
	}
	tr := acc.Finish(2*time.Second, 2, Limits{FailureShare: 0.5, DispatchLagMs: 10})
	v := tr.Values

	checkDist(t, v, "ttft_ms", []float64{100, 100, 1000})
	checkDist(t, v, "e2el_ms", []float64{160, 140, 1000})
	checkDist(t, v, "tpot_ms", []float64{60.0 / 3, 40.0 / 1})
	checkDist(t, v, "itl_ms", []float64{10, 20, 30, 40})
	checkDist(t, v, "itl_token_ms", []float64{10, 20, 30, 40})
	checkDist(t, v, "client_queue_ms", []float64{0, 20, 0})
	checkDist(t, v, "e2el_from_intended_ms", []float64{160, 160, 1000})

	dur := 2.0
	checkScalar(t, v, "completed", 3)
	checkScalar(t, v, "failed", 1)
	checkScalar(t, v, "duration_s", dur)
	checkScalar(t, v, "total_input_tokens", 35)
	checkScalar(t, v, "total_output_tokens", 7)
	checkScalar(t, v, "request_throughput", 3/dur)
	checkScalar(t, v, "output_throughput", 7/dur)
	checkScalar(t, v, "total_token_throughput", 42/dur)
	checkScalar(t, v, "qpm", 60*3/dur)
	checkScalar(t, v, "tpm", 60*42/dur)
	checkScalar(t, v, "request_goodput", 2/dur) // r1, r2 meet ttft <= 500
	checkScalar(t, v, "goodput_ratio", 2.0/4)
	checkScalar(t, v, "success_rate", 3.0/4)
	checkScalar(t, v, "output_throughput_per_gpu", 7/dur/2)
	checkScalar(t, v, "total_token_throughput_per_gpu", 42/dur/2)
	checkScalar(t, v, "max_output_tokens_per_s", 6) // six token messages in [0 s, 1 s)
	checkScalar(t, v, "max_concurrent_requests", 3) // all three in flight at 100 ms

	if tr.Completed != 3 || tr.Failed != 1 || tr.Errors["http_503"] != 1 || tr.ErrorSamples["http_503"] != "overloaded" {
		t.Errorf("counts = %d/%d errors %v samples %v", tr.Completed, tr.Failed, tr.Errors, tr.ErrorSamples)
	}
	if !tr.Valid {
		t.Errorf("trial invalid: %s", tr.InvalidReason)
	}
	for _, d := range Distributions {
		h, err := DecodeHistogram(tr.Histograms[d.Name])
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if d.Name == "ttft_ms" && (h.TotalCount() != 3 || h.Max() < 999_000) {
			t.Errorf("ttft histogram: count %d max %d us", h.TotalCount(), h.Max())
		}
	}
	for _, id := range All() {
		if _, known := Lookup(id); !known {
			t.Errorf("unknown id %s", id)
		}
	}
	for id := range v {
		if _, known := Lookup(id); !known {
			t.Errorf("trial value %s has no registry entry", id)
		}
	}
}

// TestITLPerToken: a chunk carrying k tokens after a gap g counts as k
// per-token samples of g/k, while vLLM's chunk ITL keeps one sample of g.
func TestITLPerToken(t *testing.T) {
	acc := NewAccumulator(SLO{}, 0)
	r := req(0, 0, 50, []float32{10, 30}, 8, 5)
	r.FirstChunkTokens, r.GapTokens = 1, []uint32{1, 3}
	acc.Add(r)
	tr := acc.Finish(time.Second, 0, DefaultLimits)
	checkDist(t, tr.Values, "itl_ms", []float64{10, 30})
	checkDist(t, tr.Values, "itl_token_ms", []float64{10, 10, 10, 10})
	checkDist(t, tr.Values, "tpot_ms", []float64{40.0 / 4})
	if _, ok := tr.Values["request_goodput"]; ok {
		t.Error("request_goodput set without an SLO")
	}
	if _, ok := tr.Values["output_throughput_per_gpu"]; ok {
		t.Error("per-GPU throughput set without a GPU count")
	}
	if !tr.Valid {
		t.Errorf("invalid: %s", tr.InvalidReason)
	}
}

func TestValidity(t *testing.T) {
	ok := func() *Request { return req(0, 0, 10, []float32{5}, 4, 2) }
	tests := []struct {
		name string
		reqs func() []*Request
		lim  Limits
		want string // substring of InvalidReason; "" means valid
	}{
		{"healthy", func() []*Request { return []*Request{ok(), ok()} }, DefaultLimits, ""},
		{"failure share", func() []*Request {
			return []*Request{ok(), ok(), {ErrorType: "timeout"}}
		}, DefaultLimits, "1 of 3 requests failed"},
		{"failure share under limit", func() []*Request {
			return []*Request{ok(), ok(), {ErrorType: "timeout"}}
		}, Limits{FailureShare: 0.5}, ""},
		{"all failing", func() []*Request {
			return []*Request{{ErrorType: "http_500"}, {ErrorType: "http_500"}}
		}, DefaultLimits, "every request failed (http_500: 2)"},
		{"nothing", func() []*Request { return nil }, DefaultLimits, "no requests finished"},
		{"ignore_eos clamped", func() []*Request {
			r := ok()
			r.IgnoreEOS, r.MaxTokens = true, 8
			return []*Request{r}
		}, DefaultLimits, "the server clamped or ignored max_tokens"},
		// A short request that ended with finish_reason "stop" stopped at
		// EOS: the server ignored ignore_eos, and the reason says so and
		// how to fix the workload, instead of blaming max_tokens.
		{"ignore_eos not honoured", func() []*Request {
			r := ok()
			r.IgnoreEOS, r.MaxTokens, r.Finish = true, 8, "stop"
			return []*Request{r}
		}, DefaultLimits, "1 of 1 ignore_eos requests stopped at EOS before max_tokens (e.g. got 2 tokens for max_tokens 8, finish_reason \"stop\"): the server does not honour ignore_eos; set `sampling.ignore_eos: false`"},
		{"ignore_eos stop is not blamed on max_tokens", func() []*Request {
			r := ok()
			r.IgnoreEOS, r.MaxTokens, r.Finish = true, 8, "stop"
			return []*Request{r}
		}, DefaultLimits, "vLLM, SGLang, llama.cpp"},
		{"dispatch lag", func() []*Request {
			r := ok()
			r.DispatchLag = 50 * msec
			return []*Request{r}
		}, DefaultLimits, "client saturated"},
		{"gaps do not add up", func() []*Request {
			r := ok()
			r.LastToken += 100 * msec
			return []*Request{r}
		}, DefaultLimits, "chunk gaps sum"},
		{"more tokens than asked", func() []*Request {
			r := ok()
			r.MaxTokens = 1
			return []*Request{r}
		}, DefaultLimits, "for max_tokens 1"},
		{"more chunks than tokens", func() []*Request {
			r := req(0, 0, 10, []float32{1, 1, 1, 1, 1}, 4, 2)
			return []*Request{r}
		}, DefaultLimits, "6 token messages"},
		{"tokens per chunk disagree with usage", func() []*Request {
			r := ok()
			r.FirstChunkTokens, r.GapTokens = 1, []uint32{5}
			return []*Request{r}
		}, DefaultLimits, "tokens per chunk sum to 6"},
		{"time runs backwards", func() []*Request {
			r := ok()
			r.Sent = -msec
			return []*Request{r}
		}, DefaultLimits, "out of order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			acc := NewAccumulator(SLO{}, 0)
			for _, r := range tc.reqs() {
				acc.Add(r)
			}
			tr := acc.Finish(time.Second, 0, tc.lim)
			if tc.want == "" {
				if !tr.Valid {
					t.Errorf("invalid: %s", tr.InvalidReason)
				}
				return
			}
			if tr.Valid || !strings.Contains(tr.InvalidReason, tc.want) {
				t.Errorf("valid=%v reason %q, want it to contain %q", tr.Valid, tr.InvalidReason, tc.want)
			}
			for id, v := range tr.Values {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Errorf("%s = %v", id, v)
				}
			}
		})
	}
}

// TestExactLimit: past the limit, percentiles come from the histogram and
// the trial says so; mean and extremes stay exact.
func TestExactLimit(t *testing.T) {
	acc := NewAccumulator(SLO{}, 50)
	var ttfts []float64
	for i := 0; i < 200; i++ {
		x := 10 + float64(i)*0.37
		ttfts = append(ttfts, x)
		acc.Add(req(0, 0, x, nil, 1, 1))
	}
	tr := acc.Finish(time.Second, 0, DefaultLimits)
	want := Summarize(ttfts)
	for _, st := range Stats {
		got := tr.Values[ID{"ttft_ms", st}.String()]
		// A histogram quantile is a sample, not an interpolation: allow one
		// sample spacing (0.37 ms) plus the 0.1 % bucket width.
		if math.Abs(got-want[st]) > 0.37+1e-3*want[st] {
			t.Errorf("ttft %s = %v, want %v within one sample spacing", st, got, want[st])
		}
	}
	if len(tr.Warnings) == 0 || !strings.Contains(tr.Warnings[0], "histogram") {
		t.Errorf("warnings = %q", tr.Warnings)
	}
}

// TestHistogramsMerge: histograms of separate trials merge into the pooled
// distribution (same geometry everywhere).
func TestHistogramsMerge(t *testing.T) {
	var encoded []string
	for trial := 0; trial < 3; trial++ {
		acc := NewAccumulator(SLO{}, 0)
		for i := 0; i < 10; i++ {
			acc.Add(req(0, 0, float64(10*(trial+1)), nil, 1, 1))
		}
		encoded = append(encoded, acc.Finish(time.Second, 0, DefaultLimits).Histograms["ttft_ms"])
	}
	merged := NewHistogram()
	for _, e := range encoded {
		h, err := DecodeHistogram(e)
		if err != nil {
			t.Fatal(err)
		}
		if dropped := merged.Merge(h); dropped != 0 {
			t.Fatalf("dropped %d", dropped)
		}
	}
	if merged.TotalCount() != 30 || merged.ValueAtPercentile(50) < 19_980 || merged.ValueAtPercentile(50) > 20_020 {
		t.Errorf("merged count %d median %d us", merged.TotalCount(), merged.ValueAtPercentile(50))
	}
}
