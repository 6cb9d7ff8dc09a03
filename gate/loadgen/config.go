package loadgen

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/ready"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// TrialHook brackets each measured trial, e.g. to scrape the server's
// /metrics before and after and store the deltas in t.Server. BeforeTrial
// runs after the warmups, right before the first measured request;
// AfterTrial runs once every request of the trial has finished. An error
// from either aborts the run.
type TrialHook interface {
	BeforeTrial(ctx context.Context, trial int) error
	AfterTrial(ctx context.Context, trial int, t *result.Trial) error
}

// Config holds the load generator's knobs. The zero value plus a URL is a
// working configuration.
type Config struct {
	// URL is the server's base URL (http://host:8000; a trailing /v1 is
	// accepted).
	URL string
	// APIKey is sent as "Authorization: Bearer". It never appears in
	// results, logs or errors.
	APIKey string
	// Scrubber knows further secret values (the caller's environment:
	// GITHUB_TOKEN, HF_TOKEN, ...) that must not reach results or errors
	// when a server echoes them in an error body; the API key is always
	// added to it. nil: the API key and credential shapes only.
	Scrubber *redact.Scrubber
	// Client overrides the HTTP client. By default each manifest gets a
	// keep-alive transport sized to its concurrency, without compression.
	Client *http.Client
	// Warmups is the number of warmup requests before each trial; -1 uses
	// the manifest's.
	Warmups int
	// ResetPrefixCache drops the server's prefix cache before each trial,
	// through the engine profile's endpoint (vLLM's POST
	// /reset_prefix_cache, which needs VLLM_SERVER_DEV_MODE=1; SGLang's
	// /flush_cache). An engine without one fails the run with a clear
	// error before the first trial.
	ResetPrefixCache bool
	// Engine is the server's engine profile (server.engine, --engine). ""
	// or engine.Auto asks the server once it is ready (engine.Detect),
	// falling back to the generic engine.OpenAI. The profile decides the
	// readiness probe, the max-tokens fields of chat requests and the
	// prefix-cache reset.
	Engine engine.Name
	// CacheSalt sends a per-run, per-trial cache_salt so trials do not
	// reuse each other's cached prefixes (vLLM >= 0.9).
	CacheSalt bool
	// NoContinuousUsage stops asking for continuous_usage_stats, for
	// servers that reject the option. Per-chunk token counts then come from
	// the server's /tokenize or are estimated (docs/metrics.md).
	NoContinuousUsage bool
	// NoTokenizer stops the client from counting chunk texts with the
	// server's /tokenize when usage gives no per-chunk counts (it then
	// splits the usage total evenly, see docs/metrics.md).
	NoTokenizer bool
	// Detailed, when set, receives one JSON line per measured request.
	Detailed io.Writer
	// Progress receives progress output; Terminal selects a live bar
	// (true) or plain lines every ProgressInterval (false).
	Progress         io.Writer
	Terminal         bool
	ProgressInterval time.Duration
	// Limits decide trial validity (zero fields: metrics.DefaultLimits).
	Limits metrics.Limits
	// ReadyTimeout bounds the readiness wait of Prepare.
	ReadyTimeout time.Duration
	// ReadyDeadline, when set, ends every readiness wait of Prepare by
	// this time instead, so a run spends its ready timeout once rather
	// than once per cell (a server that dies between cells would
	// otherwise cost the whole timeout again for each of them). A wait
	// after the deadline still gets MinReadyWait (ReadyTimeout when
	// shorter): a server that was ready once answers at the first probe.
	ReadyDeadline time.Time
	// Grace is how long in-flight requests may finish after the context is
	// cancelled (first Ctrl-C) before they are cut off.
	Grace time.Duration
	// DefaultTimeout bounds a request when the manifest sets no timeout.
	DefaultTimeout time.Duration
	// Hooks run around every measured trial.
	Hooks []TrialHook
	// ToolVersion is recorded in results.
	ToolVersion string
	// LookupEnv reads the environment variables a workload's headers name
	// ({env: NAME}); nil: such a workload fails with an error naming the
	// header. The values found are secrets: they are sent, never recorded.
	LookupEnv func(string) (string, bool)
}

// Defaults for zero Config fields.
const (
	DefaultReadyTimeout     = ready.DefaultTimeout
	DefaultGrace            = 10 * time.Second
	DefaultRequestTimeout   = 10 * time.Minute
	DefaultProgressInterval = 10 * time.Second
	// MinReadyWait is the shortest readiness wait Prepare makes under a
	// ReadyDeadline: a few probe rounds, enough for a server that is up.
	MinReadyWait = 15 * time.Second
)

func (c Config) withDefaults() Config {
	if c.APIKey != "" {
		c.Scrubber = c.Scrubber.With(c.APIKey)
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.DefaultTimeout <= 0 {
		c.DefaultTimeout = DefaultRequestTimeout
	}
	if c.ProgressInterval <= 0 {
		c.ProgressInterval = DefaultProgressInterval
	}
	if c.Limits.FailureShare <= 0 {
		c.Limits.FailureShare = metrics.DefaultLimits.FailureShare
	}
	if c.Limits.DispatchLagMs <= 0 {
		c.Limits.DispatchLagMs = metrics.DefaultLimits.DispatchLagMs
	}
	if c.Limits.MaxTokensPerChunk <= 0 {
		c.Limits.MaxTokensPerChunk = metrics.DefaultLimits.MaxTokensPerChunk
	}
	return c
}

// client is the HTTP side shared by all requests of a manifest.
type client struct {
	http   *http.Client
	apiKey string
	scrub  *redact.Scrubber // for error bodies, which come from the server
	// headers are the workload's extra headers, set after perfgate's own
	// (see withHeaders).
	headers http.Header
	// onEvent, when set (tests and benchmarks only), sees every event
	// with its arrival time, e.g. to compare it with the simulator's send
	// stamp.
	onEvent func(anchor time.Time, at time.Duration, data []byte)
	// keepTexts makes every exchange keep its chunks' text for counting
	// with the server's /tokenize after the trial.
	keepTexts bool
}

// newTransport returns a keep-alive transport that holds conns idle
// connections, so a trial reuses its connections instead of paying a
// handshake inside TTFT (the Python clients open one per request). Without
// reuse (an engine that closes connections after every stream) each
// request opens its own connection.
func newTransport(conns int, reuse bool) *http.Transport {
	return &http.Transport{
		DisableKeepAlives:     !reuse,
		Proxy:                 nil, // a benchmark measures the server, not a proxy
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ResponseHeaderTimeout: 0, // bounded per request by the context
		ForceAttemptHTTP2:     false,
		WriteBufferSize:       4 << 10,
		ReadBufferSize:        4 << 10,
	}
}
