package metrics

import "time"

// Request is what the metrics need of one finished request. Times are
// offsets from the trial's anchor (one monotonic clock reading taken when
// the trial's dispatcher starts), so they never jump with wall-clock
// adjustments.
type Request struct {
	// Intended is when the schedule wanted the request sent; Sent is when
	// the client actually started the POST (after any wait for a
	// concurrency slot).
	Intended time.Duration
	Sent     time.Duration
	// FirstToken and LastToken are the arrival times of the first and last
	// token messages (messages whose choices list is non-empty). Zero when
	// none arrived.
	FirstToken time.Duration
	LastToken  time.Duration
	// Done is when the response ended (after [DONE] or the error).
	Done time.Duration
	// DispatchLag is the client's own lateness in sending this request:
	// dispatcher wake-up after the intended time, plus goroutine scheduling
	// after a concurrency slot freed. Not server time.
	DispatchLag time.Duration

	Success bool
	// ErrorType classifies a failure (http_503, stream_error, timeout, ...);
	// ErrorBody holds the first bytes of the error the server sent.
	ErrorType string
	ErrorBody string

	// InputTokens and OutputTokens are the server's usage counts (with the
	// client's fallbacks, see docs/metrics.md).
	InputTokens  int
	OutputTokens int
	// MaxTokens is what the request asked for; IgnoreEOS says whether the
	// server was told to produce exactly that many.
	MaxTokens int
	IgnoreEOS bool
	// Finish is the stream's last finish_reason ("stop", "length"; empty
	// when the server sent none). It tells a request that stopped at EOS
	// despite ignore_eos from one whose max_tokens the server clamped.
	Finish string
	// Chunks counts token messages. Gaps holds the ms between consecutive
	// token messages (len Chunks-1). GapTokens, when the server sent
	// continuous usage stats, holds the tokens each later chunk carried
	// (same length as Gaps); nil means unknown (counted as 1 per chunk).
	Chunks    int
	Gaps      []float32
	GapTokens []uint32
	// FirstChunkTokens is the token count of the first token message when
	// known (0: unknown).
	FirstChunkTokens int
	// Tokens says where the per-chunk counts (GapTokens, FirstChunkTokens)
	// came from.
	Tokens TokenMethod
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TTFT, E2EL and TPOT follow vLLM's definitions (docs/vllm-reference.md).
func (r *Request) TTFT() float64 { return ms(r.FirstToken - r.Sent) }
func (r *Request) E2EL() float64 { return ms(r.LastToken - r.Sent) }

// TPOT is (e2el - ttft) / (output_tokens - 1), or 0 (and ok false) for
// requests with at most one output token.
func (r *Request) TPOT() (float64, bool) {
	if r.OutputTokens <= 1 {
		return 0, false
	}
	return ms(r.LastToken-r.FirstToken) / float64(r.OutputTokens-1), true
}
