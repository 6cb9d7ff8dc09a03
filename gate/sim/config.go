// Package sim is a simulated vLLM server: an http.Handler that speaks vLLM's
// OpenAI-compatible HTTP surface and produces tokens from a discrete-step
// continuous-batching performance model running in real time.
//
// It exists so the gate can be tested end to end without a GPU: TTFT grows
// with queueing and prefill, TPOT grows with the batch, the KV cache fills and
// preempts, and knobs make the server slower or faulty by a known amount.
// The package deliberately shares no protocol code with the client side
// (gate/sse, gate/loadgen), so a framing mistake on either side shows up as a
// test failure instead of cancelling out.
package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("1.5ms"); a bare JSON number is taken as nanoseconds.
type Duration time.Duration

// MarshalJSON writes the duration as a string such as "1.5ms".
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Duration(d).String() + `"`), nil
}

// UnmarshalJSON accepts "250us" style strings or integer nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		v, err := time.ParseDuration(s[1 : len(s)-1])
		if err != nil {
			return fmt.Errorf("duration %s: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return fmt.Errorf("duration %s: want a string like \"2ms\" or integer nanoseconds", s)
	}
	*d = Duration(n)
	return nil
}

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Config holds every knob of the simulator. All fields can be changed at run
// time with Server.Update or POST /sim/config; the engine reads the current
// value at the start of every step.
type Config struct {
	// Engine is the server the simulator impersonates: "" (vLLM), "sglang"
	// or "ollama" (see personality.go and docs/simulator.md). It is fixed
	// when the server starts. Set it with SetEngine to get the engine's
	// defaults too.
	Engine string `json:"engine,omitempty"`
	// Model is the served model name; requests naming another model get 404.
	Model string `json:"model"`
	// Version is what GET /version reports.
	Version string `json:"version"`
	// MaxModelLen bounds prompt + completion tokens of one request.
	MaxModelLen int `json:"max_model_len"`

	// MaxNumSeqs is the most sequences in one batch (vLLM --max-num-seqs).
	MaxNumSeqs int `json:"max_num_seqs"`
	// MaxBatchedTokens is the per-step token budget shared by decode tokens
	// and prefill chunks (vLLM --max-num-batched-tokens, chunked prefill).
	MaxBatchedTokens int `json:"max_num_batched_tokens"`
	// KVCacheTokens is the KV cache capacity in tokens; when running
	// sequences need more, the newest one is preempted and later recomputed.
	KVCacheTokens int `json:"kv_cache_tokens"`
	// BlockSize is the KV block size in tokens; prefix caching works on
	// full blocks.
	BlockSize int `json:"block_size"`
	// PrefixCaching enables reuse of cached prompt blocks.
	PrefixCaching bool `json:"prefix_caching"`

	// The step time is
	//   (StepBase*BaseScale
	//    + (DecodeFixed*[any decode] + DecodePerSeq*decode_seqs
	//       + PerContextToken*context_tokens)*DecodeScale
	//    + PrefillPerToken*prefill_tokens*PrefillScale)
	//   * jitter * drift
	// with the prefill term also multiplied by the session's prefill factor
	// and the decode term by its decode factor (see Session),
	// where context_tokens is the summed context length of the decoding
	// sequences (attention reads) and DecodeFixed is the weight-read cost
	// paid by any step that decodes. DecodeScale therefore scales the whole
	// decode-dependent cost, which dominates TPOT in both presets.
	StepBase        Duration `json:"step_base"`
	DecodeFixed     Duration `json:"decode_fixed"`
	DecodePerSeq    Duration `json:"decode_per_seq"`
	PrefillPerToken Duration `json:"prefill_per_token"`
	// PerContextToken is in nanoseconds per token and may be fractional,
	// so it is a float rather than a Duration.
	PerContextTokenNs float64 `json:"per_context_token_ns"`

	// Regression knobs: multipliers of the cost terms, and an extra delay
	// added to every request before it enters the scheduler (API-server
	// pre-processing), which moves TTFT but not TPOT.
	DecodeScale     float64  `json:"decode_scale"`
	PrefillScale    float64  `json:"prefill_scale"`
	BaseScale       float64  `json:"base_scale"`
	FirstTokenDelay Duration `json:"first_token_delay"`

	// Seed seeds the jitter, the generated tokens and the fault choices.
	Seed uint64 `json:"seed"`
	// JitterCV is the coefficient of variation of the log-normal per-step
	// jitter (mean 1); 0 disables it.
	JitterCV float64 `json:"jitter_cv"`
	// DriftPctPerMinute makes the server that many percent slower per
	// minute since it started; DriftPctPer1000Requests per thousand
	// requests received. Both are linear and add up.
	DriftPctPerMinute       float64 `json:"drift_pct_per_minute"`
	DriftPctPer1000Requests float64 `json:"drift_pct_per_1000_requests"`
	// SessionCVPrefill and SessionCVDecode are the coefficients of
	// variation of the per-start offsets (see Session): at every start the
	// server draws one factor per phase, log-normal with mean 1, and
	// multiplies that phase's cost by it until it stops. 0 (the default)
	// disables the offset. They are read when the server starts; changing
	// them at run time does not redraw the factors.
	SessionCVPrefill float64 `json:"session_cv_prefill"`
	SessionCVDecode  float64 `json:"session_cv_decode"`
	// SessionSeed seeds the per-start draw; 0 draws a fresh seed at every
	// start, so two starts are two sessions.
	SessionSeed uint64 `json:"session_seed"`

	// StreamInterval sends a chunk every N tokens (vLLM --stream-interval);
	// the last chunk may hold fewer.
	StreamInterval int `json:"stream_interval"`
	// CoalesceWindow merges into one chunk the tokens produced within this
	// long after the previous chunk, as vLLM's output path does when steps
	// are shorter than its per-output overhead. 0 disables it.
	CoalesceWindow Duration `json:"coalesce_window"`
	// EOSMeanTokens, when positive, ends requests without ignore_eos at a
	// seeded geometric length with this mean (never before min_tokens).
	// 0 means the model never emits EOS, so every request runs to max_tokens.
	EOSMeanTokens float64 `json:"eos_mean_tokens"`
	// StampSendTime adds "sim_sent_ns" (Unix nanoseconds of the write) to
	// every streamed JSON chunk, so a client's timing fidelity can be
	// measured against the server's send time.
	StampSendTime bool `json:"stamp_send_time"`

	Faults Faults `json:"faults"`
}

// Faults are the failure injections. Rates are fractions of requests in
// [0,1], decided per request from the seeded fault stream.
type Faults struct {
	// HTTP500Rate, HTTP429Rate and HTTP503Rate answer a request with that
	// status and a vLLM-shaped error body instead of serving it.
	HTTP500Rate float64 `json:"http_500_rate"`
	HTTP429Rate float64 `json:"http_429_rate"`
	HTTP503Rate float64 `json:"http_503_rate"`
	// StreamErrorRate requests get an in-stream {"error": ...} event after
	// StreamErrorAfter tokens (streaming) or a 500 (non-streaming).
	StreamErrorRate  float64 `json:"stream_error_rate"`
	StreamErrorAfter int     `json:"stream_error_after"`
	// DropRate requests have their connection cut after DropAfter tokens.
	DropRate  float64 `json:"drop_rate"`
	DropAfter int     `json:"drop_after"`
	// StallRate requests send nothing for StallFor after StallAfter tokens.
	StallRate  float64  `json:"stall_rate"`
	StallAfter int      `json:"stall_after"`
	StallFor   Duration `json:"stall_for"`
	// SlowStart makes GET /health answer 503 for this long after New.
	SlowStart Duration `json:"slow_start"`
	// ExitAfterRequests, when positive, calls Options.OnExit once when
	// request number ExitAfterRequests+1 arrives (that request and all in
	// flight are cut). Only `perfgate sim` wires it to a process exit.
	ExitAfterRequests int `json:"exit_after_requests"`
}

// presets are the named starting points. See docs/simulator.md for how the
// h100-8b figures were derived.
var presets = map[string]Config{
	// fast: ~1 ms decode steps at low batch. The decode-dependent cost is
	// ~90% of a step, so decode_scale 1.3 moves TPOT by ~27%; steps are not
	// shorter because Go's timers wake about 1 ms late on Linux under load
	// (measured: a 50 us sleep takes ~1.1 ms), and while absolute deadlines
	// keep the mean exact, shorter steps would turn every ITL into a burst.
	// A 48-request, 32-token smoke run takes ~45 ms at full concurrency and
	// ~0.2 s at concurrency 8.
	"fast": {
		Model: "sim-fast", MaxModelLen: 4096,
		MaxNumSeqs: 256, MaxBatchedTokens: 8192, KVCacheTokens: 1 << 18, BlockSize: 16, PrefixCaching: true,
		StepBase: Duration(100 * time.Microsecond), DecodeFixed: Duration(900 * time.Microsecond),
		DecodePerSeq: Duration(4 * time.Microsecond), PrefillPerToken: Duration(200 * time.Nanosecond),
		PerContextTokenNs: 0.5,
		JitterCV:          0.02, StreamInterval: 1,
	},
	// h100-8b: roughly a Llama-3.1-8B (BF16) on one H100 80GB with vLLM
	// defaults: ~10 ms TPOT at batch 1 rising to ~18 ms at 64 sequences of
	// 1.5k context, ~40 us of prefill per prompt token.
	"h100-8b": {
		Model: "meta-llama/Llama-3.1-8B-Instruct", MaxModelLen: 8192,
		MaxNumSeqs: 256, MaxBatchedTokens: 8192, KVCacheTokens: 400000, BlockSize: 16, PrefixCaching: true,
		StepBase: Duration(2 * time.Millisecond), DecodeFixed: Duration(8 * time.Millisecond),
		DecodePerSeq: Duration(60 * time.Microsecond), PrefillPerToken: Duration(40 * time.Microsecond),
		PerContextTokenNs: 40,
		JitterCV:          0.03, StreamInterval: 1,
	},
}

// PresetNames lists the preset names in sorted order.
func PresetNames() []string {
	return slices.Sorted(maps.Keys(presets))
}

// Preset returns the named configuration with the common defaults filled in.
func Preset(name string) (Config, error) {
	c, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("unknown simulator preset %q (known: %v)", name, PresetNames())
	}
	c.Version = "0.11.0+perfgate-sim"
	c.Seed = 1
	c.DecodeScale, c.PrefillScale, c.BaseScale = 1, 1, 1
	return c, nil
}

// Validate reports the first knob that is out of range, naming its JSON key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if c.Model == "" {
		bad("model", "must not be empty")
	}
	if c.Engine != "" && !slices.Contains(Engines(), c.Engine) {
		bad("engine", "must be one of %v (empty: vllm), got %q", Engines(), c.Engine)
	}
	positive := map[string]int{"max_model_len": c.MaxModelLen, "max_num_seqs": c.MaxNumSeqs,
		"max_num_batched_tokens": c.MaxBatchedTokens, "kv_cache_tokens": c.KVCacheTokens,
		"block_size": c.BlockSize, "stream_interval": c.StreamInterval}
	for _, k := range slices.Sorted(maps.Keys(positive)) {
		if positive[k] <= 0 {
			bad(k, "must be positive, got %d", positive[k])
		}
	}
	if c.KVCacheTokens > 0 && c.MaxModelLen > c.KVCacheTokens {
		bad("kv_cache_tokens", "%d cannot hold one request of max_model_len %d", c.KVCacheTokens, c.MaxModelLen)
	}
	nonNeg := map[string]float64{"step_base": float64(c.StepBase), "decode_fixed": float64(c.DecodeFixed),
		"decode_per_seq": float64(c.DecodePerSeq), "prefill_per_token": float64(c.PrefillPerToken),
		"per_context_token_ns": c.PerContextTokenNs, "decode_scale": c.DecodeScale,
		"prefill_scale": c.PrefillScale, "base_scale": c.BaseScale,
		"first_token_delay": float64(c.FirstTokenDelay), "jitter_cv": c.JitterCV,
		"coalesce_window": float64(c.CoalesceWindow), "eos_mean_tokens": c.EOSMeanTokens,
		"drift_pct_per_minute": c.DriftPctPerMinute, "drift_pct_per_1000_requests": c.DriftPctPer1000Requests,
		"session_cv_prefill": c.SessionCVPrefill, "session_cv_decode": c.SessionCVDecode,
		"faults.stream_error_after": float64(c.Faults.StreamErrorAfter), "faults.drop_after": float64(c.Faults.DropAfter),
		"faults.stall_after": float64(c.Faults.StallAfter), "faults.stall_for": float64(c.Faults.StallFor),
		"faults.slow_start": float64(c.Faults.SlowStart), "faults.exit_after_requests": float64(c.Faults.ExitAfterRequests)}
	for _, k := range slices.Sorted(maps.Keys(nonNeg)) {
		if v := nonNeg[k]; v < 0 || v != v {
			bad(k, "must be >= 0, got %v", v)
		}
	}
	f := c.Faults
	rates := map[string]float64{"faults.http_500_rate": f.HTTP500Rate, "faults.http_429_rate": f.HTTP429Rate,
		"faults.http_503_rate": f.HTTP503Rate, "faults.stream_error_rate": f.StreamErrorRate,
		"faults.drop_rate": f.DropRate, "faults.stall_rate": f.StallRate}
	for _, k := range slices.Sorted(maps.Keys(rates)) {
		if v := rates[k]; !(v >= 0 && v <= 1) {
			bad(k, "must be a fraction in [0,1], got %v", v)
		}
	}
	if s := f.HTTP500Rate + f.HTTP429Rate + f.HTTP503Rate; s > 1 {
		bad("faults.http_*_rate", "the status fault rates add up to %v > 1", s)
	}
	return errors.Join(errs...)
}
