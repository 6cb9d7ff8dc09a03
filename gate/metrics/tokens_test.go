package metrics

import (
	"strings"
	"testing"
	"time"
)

// chunky builds a request of chunks token messages gap ms apart, each
// carrying per tokens, counted by method m (GapTokens nil when the counts
// are unknown, as before issue 11's fix).
func chunky(sent float64, chunks int, gap float32, per int, m TokenMethod, known bool) *Request {
	gaps := make([]float32, chunks-1)
	for i := range gaps {
		gaps[i] = gap
	}
	r := req(sent, sent, 20, gaps, 10, chunks*per)
	r.Tokens = m
	if known {
		r.FirstChunkTokens = per
		r.GapTokens = make([]uint32, len(gaps))
		for i := range r.GapTokens {
			r.GapTokens[i] = uint32(per)
		}
	}
	return r
}

func finish(reqs ...*Request) (*Accumulator, float64) {
	acc := NewAccumulator(SLO{}, 0)
	end := 0.0
	for _, r := range reqs {
		acc.Add(r)
		end = max(end, ms(r.LastToken))
	}
	return acc, end
}

func warned(ws []string, part string) bool { return strings.Contains(strings.Join(ws, "\n"), part) }

// TestTokenCountingRecorded checks Trial.Tokens: the majority method, the
// per-method counts when they differ, tokens per chunk, the approximate
// flag.
func TestTokenCountingRecorded(t *testing.T) {
	acc, end := finish(chunky(0, 4, 5, 1, TokensUsageCumulative, true), chunky(0, 4, 5, 1, TokensUsageCumulative, true),
		chunky(0, 4, 5, 3, TokensEvenSplit, true))
	tr := acc.Finish(time.Duration(end*float64(msec)), 0, DefaultLimits)
	tc := tr.Tokens
	if tc == nil || tc.Method != "usage_cumulative" || !tc.ITLTokenApprox || tc.Requests["even_split"] != 1 || tc.Requests["usage_cumulative"] != 2 {
		t.Fatalf("token counting %+v", tc)
	}
	if want := 20.0 / 12; tc.TokensPerChunk != want {
		t.Errorf("tokens per chunk %v, want %v", tc.TokensPerChunk, want)
	}
	// Hand-made requests without a method record none.
	acc, end = finish(req(0, 0, 10, []float32{1}, 1, 2))
	if tr := acc.Finish(time.Duration(end*float64(msec)), 0, DefaultLimits); tr.Tokens != nil {
		t.Errorf("no method recorded, got %+v", tr.Tokens)
	}
}

// TestSeveralTokensPerChunk is issue 11's ollama trial: 3.4 tokens per
// chunk. It warns (documented threshold WarnTokensPerChunk) and stays
// valid; past Limits.MaxTokensPerChunk it is invalid.
func TestSeveralTokensPerChunk(t *testing.T) {
	tests := []struct {
		per     int
		warn    bool
		invalid bool
	}{
		{1, false, false},
		{3, true, false},
		{8, true, false},
		{9, true, true},
	}
	for _, tc := range tests {
		acc, end := finish(chunky(0, 10, 5, tc.per, TokensEvenSplit, true))
		tr := acc.Finish(time.Duration(end*float64(msec)), 0, DefaultLimits)
		if got := warned(tr.Warnings, "tokens on average"); got != tc.warn {
			t.Errorf("%d per chunk: warning %v, want %v (%q)", tc.per, got, tc.warn, tr.Warnings)
		}
		if tc.warn && !warned(tr.Warnings, "approximated") {
			t.Errorf("%d per chunk: the approximation is not named: %q", tc.per, tr.Warnings)
		}
		if got := !tr.Valid && strings.Contains(tr.InvalidReason, "buffers its stream"); got != tc.invalid {
			t.Errorf("%d per chunk: invalid %v (%s), want %v", tc.per, !tr.Valid, tr.InvalidReason, tc.invalid)
		}
	}
}

// TestITLTokenAboveTPOTWarns is the case of issue 11 before the fix:
// per-chunk counts unknown, so itl_token_ms equalled itl_ms (p99 38.9 ms)
// beside a TPOT of 1.6 ms. The same trial with known counts does not warn.
func TestITLTokenAboveTPOTWarns(t *testing.T) {
	for _, known := range []bool{false, true} {
		acc, end := finish(chunky(0, 10, 5.4, 4, TokensOnePerChunk, known), chunky(1, 10, 5.4, 4, TokensOnePerChunk, known))
		tr := acc.Finish(time.Duration(end*float64(msec)), 0, DefaultLimits)
		if got := warned(tr.Warnings, "× the TPOT mean"); got == known {
			t.Errorf("counts known %v: itl_token_ms/TPOT warning %v (%q)", known, got, tr.Warnings)
		}
	}
}

// TestPeakBelowMeanWarns: the peak counts token messages per second
// (vLLM's definition), the mean counts tokens, so with 4 tokens a chunk
// over 3 s the peak (about 34 messages/s) falls below the mean (about 133
// tokens/s), and the trial says why. One token a chunk: no warning.
//
// A trial shorter than one bin (0.5 s here) has its peak below its mean
// whatever the chunking; it warns only when chunks carry several tokens.
func TestPeakBelowMeanWarns(t *testing.T) {
	for _, gap := range []float32{30, 5} {
		for _, per := range []int{1, 4} {
			var reqs []*Request
			for i := 0; i < 4; i++ {
				reqs = append(reqs, chunky(float64(i), 100, gap, per, TokensUsageCumulative, true))
			}
			acc, end := finish(reqs...)
			tr := acc.Finish(time.Duration(end*float64(msec)), 0, DefaultLimits)
			if got := warned(tr.Warnings, "below the mean output_throughput"); got != (per > 1) {
				t.Errorf("gap %v ms, %d per chunk: peak warning %v (peak %v, mean %v): %q", gap, per, got,
					tr.Values["max_output_tokens_per_s"], tr.Values["output_throughput"], tr.Warnings)
			}
		}
	}
}
