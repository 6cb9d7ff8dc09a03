package workload

import (
	"encoding/json"
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trace"
)

// API selects the OpenAI endpoint a workload drives.
type API string

const (
	Completions API = "completions" // POST /v1/completions
	Chat        API = "chat"        // POST /v1/chat/completions
)

// Manifest is the deterministic expansion of one workload cell: every
// request to send, in order, with its arrival offset. The same workload
// file yields a byte-identical manifest (and Hash) on any machine.
type Manifest struct {
	// Name is the workload's name; Cell is Name, or Name@c16 / Name@r2.5 for
	// one cell of a sweep.
	Name string
	Cell string
	// Source is the workload file the cell was loaded from.
	Source string
	// Hash is the hex sha256 of the canonical encoding of the manifest. It
	// identifies the cell: results with different hashes are not compared.
	Hash string
	API  API
	// Model is the model to request; empty means the server's first model,
	// discovered at run time.
	Model string
	// Concurrency caps requests in flight; 0 means unlimited.
	Concurrency int
	// Rate is the mean arrival rate in requests/s; +Inf sends all at once.
	Rate float64
	// Burstiness is the gamma shape of inter-arrival times (1 = Poisson,
	// +Inf = constant spacing).
	Burstiness float64
	Sampling   Sampling
	// Timeout bounds each request.
	Timeout time.Duration
	// SLO defines goodput; zero fields are not checked.
	SLO SLO
	// Trials is the trial budget: Min trials are always run, up to Max when
	// the verdict stays inconclusive.
	Trials TrialBudget
	// Gate holds the workload's per-metric overrides of the verdict policy.
	Gate []GateRule
	// Requests are the measured requests, identical in every trial.
	Requests []Request
	// Warmups are sent before each trial and not measured. Their prompts
	// differ from every measured prompt, so they do not warm its prefix.
	Warmups []Request
	// GPUs is the GPU count throughput is normalised by (0: not set).
	GPUs int
	// Spec is the cell's resolved specification as canonical JSON, stored
	// in result files.
	Spec []byte
	// Kind is KindCommand for a workload that runs a command per trial
	// (then Command is set, Timeout bounds one trial and there are no
	// requests); KindServing or empty for a serving workload.
	Kind    string
	Command *Command
	// PromptFormat is PromptText when the prompts are words to calibrate
	// against the server (Calibrate), else empty.
	PromptFormat string
	// Calibration is the fit the prompts were rendered with, nil before
	// Calibrate.
	Calibration *result.PromptCalibration
	seed        uint64 // the dataset seed, for rendering text segments
	// ExtraBody is a JSON object merged into every request body (nil:
	// none); Headers are sent with every request. See docs/workloads.md.
	ExtraBody json.RawMessage
	Headers   []Header
	// RampUp is the rate ramp the arrivals follow (nil: a fixed rate).
	RampUp *RampUp
	// Trace describes the trace whose timestamps the arrivals replay
	// ("trace.jsonl, time_scale 0.001"); empty for other datasets. Rate
	// and Burstiness then mean nothing.
	Trace string
	// MetricPercentiles are the percentiles recorded besides the fixed
	// ones.
	MetricPercentiles []float64
	// Warnings are problems found while expanding the cell that did not
	// invalidate it (dataset fields that were ignored); plan prints them.
	Warnings []string
	// Capacity is set for a kind: capacity cell (Kind KindCapacity): the
	// search settings. Its requests are timed for 1 req/s; each probe runs
	// At a rate or concurrency.
	Capacity *CapacitySpec
	// SaturationShare is set (0.8) for a serving cell whose rate is that
	// share of saturation (`80%-of-saturation`): its requests are timed
	// for 1 req/s, and the runner measures saturation first and runs the
	// trials At share x saturation.
	SaturationShare float64
	// Profiling is the workload's own profiling: key ("": perfgate.yaml's
	// profiling.when decides). It is not part of the Spec nor the Hash: a
	// profile is taken beside the measurement and never changes it.
	Profiling trace.Mode
	// BaselineRate is set on a share-of-saturation cell's comparison at
	// the baseline's absolute rate (AtBaselineRate); the result of its
	// trials carries it.
	BaselineRate *result.BaselineRate
}

// Request is one request of a manifest.
type Request struct {
	Index int
	// Arrival is the intended send time as an offset from the trial start.
	Arrival time.Duration
	// Exactly one of PromptIDs, Prompt and Messages is set: token ids (the
	// completions API on random data, so prompt_tokens is exact), a text
	// prompt (completions on file datasets), or chat messages.
	PromptIDs []int
	Prompt    string
	Messages  []Message
	// InputTokens is the intended prompt length in tokens (exact for ids,
	// the dataset's count or an estimate for text).
	InputTokens int
	// MaxTokens is the requested output length.
	MaxTokens int
	// segs are the text segments of a PromptText request.
	segs []segment
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// The settings a spec records are result's types: the result file owns
// the vocabulary it stores (see result.Spec).
type (
	// Sampling pins the sampling parameters.
	Sampling = result.Sampling
	// SLO thresholds in milliseconds for goodput.
	SLO = result.SLO
	// TrialBudget is the number of trials to run.
	TrialBudget = result.TrialBudget
	// GateRule overrides the verdict policy for one metric id in this
	// workload.
	GateRule = result.GateRule
	// Header is one extra request header.
	Header = result.Header
	// RampUp is vLLM's request-rate ramp.
	RampUp = result.RampUp
	// TokenRange is an inclusive range of token ids.
	TokenRange = result.TokenRange
)

// Unlimited reports whether the rate is infinite (everything at t=0).
func (m *Manifest) Unlimited() bool { return math.IsInf(m.Rate, 1) }
