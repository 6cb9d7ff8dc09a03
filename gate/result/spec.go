package result

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Workload kinds a spec describes (its "kind" key). A serving spec has no
// kind key on disk: it was the only kind when the format was written.
const (
	// KindServing drives an OpenAI-compatible server with requests.
	KindServing = "serving"
	// KindCommand runs a benchmark command once per trial (`vllm bench
	// latency ... --output-json {out}`).
	KindCommand = "command"
	// KindBench is a result imported from `vllm bench serve` files.
	KindBench = "vllm-bench"
)

// Spec is the workload specification a result file carries
// (Workload.Spec), so a result can be judged, reported and exported without
// the workload file it came from. It is the one reader and writer of that
// JSON: the workload expander and the vLLM importer write it, the verdict
// (gate rules), the report (load shape) and the exporter read it.
//
// Three layouts exist on disk, chosen by Kind; MarshalJSON writes each
// byte for byte as earlier versions did (the identity hash of an imported
// result is the hash of its spec), and UnmarshalJSON reads all three,
// tolerating absent and unknown keys.
type Spec struct {
	Kind        string // KindServing, KindCommand or KindBench
	Name        string
	Cell        string
	Description string
	// GPUs is the GPU count throughput is normalised by (0: not set).
	GPUs   int
	Trials TrialBudget
	// TimeoutS bounds one request (serving) or one trial (command), in
	// seconds; 0 when not recorded.
	TimeoutS float64
	// Gate holds the workload's per-metric overrides of the verdict policy.
	Gate []GateRule

	// The request stream of a serving cell.
	API      string // "completions" or "chat"
	Model    string
	Dataset  Dataset
	Load     Load
	Sampling Sampling
	Warmups  int
	SLO      SLO
	// ExtraBody is the JSON object merged into every request body
	// (vllm bench serve --extra-body), compact with sorted keys; nil when
	// the workload sets none.
	ExtraBody json.RawMessage
	// Headers are the extra request headers (vllm bench serve --header).
	// A header whose value comes from the environment records only the
	// variable's name: results never hold a secret.
	Headers []Header
	// MetricPercentiles are the percentiles recorded besides the fixed
	// ones (vllm bench serve --metric-percentiles).
	MetricPercentiles []float64

	// Command is the benchmark of a command cell, nil otherwise.
	Command *Command
	// Bench is the load identity of an imported cell, nil otherwise.
	Bench *Bench
	// Capacity is the search of a capacity cell (KindCapacity: a serving
	// request stream whose rate or concurrency the search chooses), nil
	// otherwise.
	Capacity *CapacitySpec
}

// Dataset describes where a serving cell's prompts came from.
type Dataset struct {
	Kind         string      `json:"kind"`
	InputTokens  int         `json:"input_tokens,omitempty"`
	OutputTokens int         `json:"output_tokens,omitempty"`
	RangeRatio   float64     `json:"range_ratio"`
	PrefixTokens int         `json:"prefix_tokens,omitempty"`
	NumPrefixes  int         `json:"num_prefixes,omitempty"`
	Seed         uint64      `json:"seed"`
	Path         string      `json:"path,omitempty"`
	SHA256       string      `json:"sha256,omitempty"`
	TokenIDs     *TokenRange `json:"token_ids,omitempty"`
	// PromptFormat is "text" for calibrated word prompts (the result's
	// Workload.Calibration says how they were sized), else empty.
	PromptFormat string `json:"prompt_format,omitempty"`
	// The replay settings of a trace dataset: the file's format (jsonl or
	// csv), seconds per timestamp unit, the tokens each hash id stands
	// for, and the replayed window in seconds (0: the whole trace).
	Format          string  `json:"format,omitempty"`
	TimeScale       float64 `json:"time_scale,omitempty"`
	HashBlockTokens int     `json:"hash_block_tokens,omitempty"`
	MaxDurationS    float64 `json:"max_duration_s,omitempty"`
	// Fields renames the trace's keys or columns, by role.
	Fields map[string]string `json:"fields,omitempty"`
}

// Header is one extra request header: a literal Value, or Env, the name
// of the environment variable the runner reads the (secret) value from.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	Env   string `json:"env,omitempty"`
}

// RampUp is vLLM's request-rate ramp (--ramp-up-strategy,
// --ramp-up-start-rps, --ramp-up-end-rps): request i of n is sent at
// StartRPS moved towards EndRPS by i/(n-1), linearly or geometrically.
type RampUp struct {
	Strategy string  `json:"strategy"`
	StartRPS float64 `json:"start_rps"`
	EndRPS   float64 `json:"end_rps"`
}

// TokenRange is an inclusive range of token ids.
type TokenRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Load is a load point: requests per trial, the concurrency cap (0:
// unlimited), the mean arrival rate in requests/s (+Inf: all at once) and
// the gamma shape of inter-arrival times (1: Poisson, +Inf: constant
// spacing).
type Load struct {
	Requests    int
	Concurrency int
	Rate        float64
	Burstiness  float64
	// RampUp, when set, replaces the fixed rate (Rate is then +Inf, as
	// vLLM records it).
	RampUp *RampUp
	// SaturationShare is set (0.8) when the rate is that share of the
	// saturation throughput measured first (`80%-of-saturation`); Rate is
	// then 0, since the absolute rate is known only at run time
	// (Result.Saturation).
	SaturationShare float64
}

// Sampling pins the sampling parameters, since servers' defaults change
// between versions and a frozen workload must not.
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	IgnoreEOS   bool     `json:"ignore_eos,omitempty"`
	MinTokens   int      `json:"min_tokens,omitempty"`
	// The vLLM sampling extensions (vllm bench serve --top-k, --min-p,
	// --frequency-penalty, --presence-penalty, --repetition-penalty). They
	// are pointers so an unset one is left out of the request and of the
	// spec: the server's default applies, and the encoding (and manifest
	// hash) of a workload that sets none is what it was before they existed.
	TopK              *int     `json:"top_k,omitempty"`
	MinP              *float64 `json:"min_p,omitempty"`
	FrequencyPenalty  *float64 `json:"frequency_penalty,omitempty"`
	PresencePenalty   *float64 `json:"presence_penalty,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
}

// SLO thresholds in milliseconds for goodput: a successful request is good
// when each set threshold holds with measured <= slo.
type SLO struct {
	TTFTms float64 `json:"ttft_ms,omitempty"`
	TPOTms float64 `json:"tpot_ms,omitempty"`
	E2ELms float64 `json:"e2el_ms,omitempty"`
}

// Set reports whether any threshold is set.
func (s SLO) Set() bool { return s.TTFTms > 0 || s.TPOTms > 0 || s.E2ELms > 0 }

// TrialBudget is the number of trials to run: Min always, up to Max while
// the verdict stays inconclusive.
type TrialBudget struct {
	Min int `json:"min"`
	Max int `json:"max"`
	// Restarts is the number of server starts Min is spread over when
	// perfgate launches the server (0 or 1: one session). It is not part
	// of the workload hash: it changes how the candidate is measured (in K
	// sessions instead of one), not what is measured (the same requests at
	// the same load), and each start is recorded on its trials
	// (Trial.Start), which is what the verdict reads. A baseline recorded
	// in one session stays comparable with a candidate of K starts, and
	// the hashes of workloads without the key do not change.
	Restarts int `json:"restarts,omitempty"`
}

// GateRule overrides the verdict policy for one metric id in a workload.
type GateRule struct {
	Metric string `json:"metric"`
	// Tolerance is a fraction (0.03 for "3%"); for ratio metrics such as
	// success_rate it is absolute (0.005 for "0.5pp"). Zero keeps the default.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Gated, when non-nil, turns gating of the metric on or off.
	Gated *bool `json:"gated,omitempty"`
}

// Command is what a command cell runs: argv (no shell) and the variables
// added to the runner's environment.
type Command struct {
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env,omitempty"`
}

// Bench is what makes two imported `vllm bench serve` cells comparable:
// the benchmark's load parameters and mean request lengths, never machine
// or metadata.
type Bench struct {
	NumPrompts int
	// RequestRate is +Inf for vLLM's "inf".
	RequestRate float64
	// Burstiness is the gamma shape (1: Poisson, +Inf: constant spacing).
	Burstiness     float64
	MaxConcurrency int // 0: unlimited
	// MeanInputLen and MeanOutputLen are total tokens / completed requests,
	// rounded to whole tokens. vLLM's file does not name its dataset; the
	// lengths are what tells a 1000/300 benchmark from a 4000/1000 one.
	MeanInputLen  int
	MeanOutputLen int
	EndpointType  string
	RampUp        string
	// DatasetName and Seed are the dataset and its seed where the imported
	// tool records them (vLLM's files do not): "" and nil when unknown.
	DatasetName string
	Seed        *uint64
}

// ParseSpec decodes the spec of w; an empty spec (a result written by a
// hand or an old tool) is a zero serving spec.
func (w Workload) ParseSpec() (Spec, error) {
	var s Spec
	if len(w.Spec) == 0 {
		s.Kind = KindServing
		return s, nil
	}
	if err := json.Unmarshal(w.Spec, &s); err != nil {
		return Spec{}, fmt.Errorf("workload spec: %w", err)
	}
	return s, nil
}

// Shape returns the load point of a serving or imported cell; ok is false
// for a command cell and for a spec that records no load.
func (s Spec) Shape() (l Load, ok bool) {
	switch {
	case s.Bench != nil:
		b := s.Bench
		return Load{Requests: b.NumPrompts, Concurrency: b.MaxConcurrency, Rate: b.RequestRate, Burstiness: b.Burstiness}, b.RequestRate > 0
	case s.Kind == KindServing:
		// Every serving spec written has a positive (or infinite) rate.
		return s.Load, s.Load.Rate > 0
	}
	return Load{}, false
}

// FormatRate writes a rate or burstiness as spec files and vLLM do: "inf"
// for +Inf, else the shortest decimal form ("2.5", "1000").
func FormatRate(r float64) string {
	if math.IsInf(r, 1) {
		return "inf"
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

// number is a float64 that encodes +Inf as the string "inf" (JSON has no
// infinity) and decodes a JSON number or a string holding one, "inf" and
// "infinity" included (vLLM writes request_rate as "inf").
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), -1) {
		return nil, fmt.Errorf("%v has no spec encoding", float64(n))
	}
	if math.IsInf(float64(n), 1) {
		return []byte(`"inf"`), nil
	}
	return []byte(strconv.FormatFloat(float64(n), 'g', -1, 64)), nil
}

func (n *number) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "inf", "+inf", "infinity", "+infinity":
			*n = number(math.Inf(1))
			return nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, -1) {
			return fmt.Errorf("%q is not a number or \"inf\"", s)
		}
		*n = number(f)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = number(f)
	return nil
}
