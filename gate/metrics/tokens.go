package metrics

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/result"
)

// TokenMethod says how the client learned how many output tokens each
// streamed chunk carried. Servers report usage in four styles (vLLM's
// continuous_usage_stats: cumulative on every chunk; per-chunk counts;
// ollama: zeros on every chunk and the total at the end; most servers: the
// total at the end only), so the per-chunk count, which itl_token_ms
// divides each chunk gap by, comes from the best source the stream offers.
// docs/metrics.md lists the methods in the order the client tries them.
type TokenMethod uint8

// The methods, best first. TokensUnknown is a request recorded without a
// method (a hand-built record): it is not counted in Trial.Tokens.
const (
	TokensUnknown TokenMethod = iota
	// TokensUsageCumulative: the difference of consecutive cumulative
	// usage.completion_tokens (exact).
	TokensUsageCumulative
	// TokensUsagePerChunk: each chunk's usage.completion_tokens is its own
	// count and they add up to the final total (exact).
	TokensUsagePerChunk
	// TokensTokenize: each chunk's text counted by the server's /tokenize
	// after the trial, scaled to the usage total (approximate: a word split
	// over two chunks may count differently alone).
	TokensTokenize
	// TokensEvenSplit: the usage total divided evenly over the chunks with
	// text, because it exceeded their number (approximate).
	TokensEvenSplit
	// TokensOnePerChunk: one token per chunk with text, because usage gave
	// nothing better and did not contradict it.
	TokensOnePerChunk
	tokenMethods
)

var tokenMethodNames = [tokenMethods]string{"", "usage_cumulative", "usage_per_chunk", "tokenize", "even_split", "one_per_chunk"}

// String is the method's name in result files ("usage_cumulative", ...).
func (m TokenMethod) String() string {
	if m < tokenMethods {
		return tokenMethodNames[m]
	}
	return fmt.Sprintf("TokenMethod(%d)", m)
}

// Approximate reports whether per-chunk counts are estimated rather than
// reported by the server, which makes itl_token_ms an approximation.
func (m TokenMethod) Approximate() bool { return m == TokensTokenize || m == TokensEvenSplit }

// WarnTokensPerChunk is the mean output tokens per token message above
// which a trial warns that chunks carry several tokens: itl_ms then measures
// the gap between chunks, not between tokens, and the TTFT is the time of
// the first flush rather than of the first token. vLLM and SGLang stream one
// token per chunk by default (stream interval 1); 1.5 leaves room for chat's
// role-only opening chunk and the occasional merged chunk.
const WarnTokensPerChunk = 1.5

// DefaultMaxTokensPerChunk is the default Limits.MaxTokensPerChunk: above a
// mean of 8 tokens per token message the stream is buffered so coarsely
// that TTFT and ITL describe the server's flush policy, not its decoding,
// and the trial is invalid. ollama streams about 3.4 (issue 11), vLLM with
// --stream-interval 4 four, both below it.
const DefaultMaxTokensPerChunk = 8

// tokenCounts tallies the methods of a trial's successful requests.
type tokenCounts [tokenMethods]int

func (c *tokenCounts) add(m TokenMethod) {
	if m < tokenMethods {
		c[m]++
	}
}

// trialCounting summarises the methods for result.Trial.Tokens: nil when
// no request recorded one.
func (c *tokenCounts) trialCounting(outTokens, chunks int64) *result.TokenCounting {
	tc := &result.TokenCounting{}
	best, kinds := TokensUnknown, 0
	byName := map[string]int{}
	for m := TokensUsageCumulative; m < tokenMethods; m++ {
		n := c[m]
		if n == 0 {
			continue
		}
		kinds++
		byName[m.String()] = n
		if best == TokensUnknown || n > c[best] {
			best = m
		}
		if m.Approximate() {
			tc.ITLTokenApprox = true
		}
	}
	if kinds == 0 {
		return nil
	}
	tc.Method = best.String()
	if kinds > 1 {
		tc.Requests = byName
	}
	if chunks > 0 {
		tc.TokensPerChunk = float64(outTokens) / float64(chunks)
	}
	return tc
}

// tokenWarnings are the caveats of a trial whose chunks carry several
// tokens, or whose per-token figures contradict each other: the peak rate
// counts token messages (vLLM's definition) while the mean counts tokens,
// and itl_token_ms far above TPOT means the per-chunk counts were missed.
func tokenWarnings(t *result.Trial, dur float64) []string {
	v := t.Values
	var out []string
	if tc := t.Tokens; tc != nil && tc.TokensPerChunk > WarnTokensPerChunk {
		how := "itl_token_ms divides each gap among the chunk's tokens (" + tc.Method + ")"
		if tc.ITLTokenApprox {
			how = "itl_token_ms is approximated by dividing each gap among the chunk's estimated tokens (" + tc.Method + ")"
		}
		out = append(out, fmt.Sprintf("chunks carried %.1f tokens on average (more than %g): itl_ms is the gap between chunks, not tokens; %s", tc.TokensPerChunk, WarnTokensPerChunk, how))
	}
	// A trial shorter than a bin has its peak below its mean whatever the
	// chunking (all of it fits one bin, the mean divides by less than a
	// second), so without several tokens a chunk only a longer trial says.
	several := t.Tokens != nil && t.Tokens.TokensPerChunk > WarnTokensPerChunk
	if peak, mean := v["max_output_tokens_per_s"], v["output_throughput"]; peak < 0.9*mean && (several || dur >= 2) {
		why := "the peak counts token messages per 1-second bin as vLLM does, the mean counts tokens"
		if several {
			why += fmt.Sprintf(", and chunks carried %.1f tokens on average", t.Tokens.TokensPerChunk)
		}
		out = append(out, fmt.Sprintf("max_output_tokens_per_s (%.0f) is below the mean output_throughput (%.0f): %s", peak, mean, why))
	}
	itl, okI := v[ID{"itl_token_ms", Mean}.String()]
	tpot, okT := v[ID{"tpot_ms", Mean}.String()]
	if okI && okT && tpot > 0 && itl > 1.5*tpot {
		out = append(out, fmt.Sprintf("itl_token_ms mean %.3f ms is %.1f× the TPOT mean %.3f ms: the tokens of each chunk were not known, so itl_token_ms is per chunk", itl, itl/tpot, tpot))
	}
	return out
}

// tokensPerChunkReason is the validity rule on coarse chunking ("" when it
// holds).
func tokensPerChunkReason(t *result.Trial, l Limits) string {
	tc := t.Tokens
	if tc == nil || l.MaxTokensPerChunk <= 0 || tc.TokensPerChunk <= l.MaxTokensPerChunk {
		return ""
	}
	return fmt.Sprintf("chunks carried %.1f tokens on average (> %g): the server buffers its stream, so TTFT and ITL measure its flushes, not its decoding", tc.TokensPerChunk, l.MaxTokensPerChunk)
}
