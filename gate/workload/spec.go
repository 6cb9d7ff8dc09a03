package workload

import (
	"encoding/json"
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/trace"
)

// Dataset kinds.
const (
	KindRandom           = "random"
	KindPrefixRepetition = "prefix-repetition"
	KindShareGPT         = "sharegpt"
	KindJSONL            = "jsonl"
	KindTrace            = "trace"
)

// Defaults applied to fields a workload file leaves out. They are part of
// the file format: changing one changes the expansion (and the hash) of
// every file that relies on it, so they are documented in docs/workloads.md.
const (
	// DefaultWarmups caps warmup requests at min(requests, 20): the
	// reproducibility rule of the studies is "warm up with >= 20 requests".
	DefaultWarmups = 20
	// DefaultTimeout bounds one request.
	DefaultTimeout = 10 * time.Minute
	// DefaultTrialsMin and DefaultTrialsMax are the trial budget.
	DefaultTrialsMin = 5
	DefaultTrialsMax = 10
	// DefaultNumPrefixes is the number of distinct shared prefixes of a
	// prefix-repetition dataset.
	DefaultNumPrefixes = 4
	// DefaultTokenIDMin and DefaultTokenIDMax bound random token ids. Common
	// tokenizers keep their special and control tokens either below 1000
	// (Mistral's tekken reserves 0-999, Llama 2 uses 0-2, Gemma's unused
	// tokens are below 256) or at the top of a vocabulary of at least 32000
	// (Llama 3 from 128000, Qwen from 151643, Phi-3 from 32000), so
	// 1000-29999 are ordinary tokens in all of them and the server's
	// prompt_tokens equals the number of ids sent.
	DefaultTokenIDMin = 1000
	DefaultTokenIDMax = 29999
)

// maxCellTokens bounds the prompt tokens one cell may expand to (measured
// and warmup requests together), so a typo such as an extra zero fails
// validation instead of exhausting memory. The largest shipped workload
// (32000 x 100) needs 3.8 M.
const maxCellTokens = 50_000_000

// File is a parsed and validated workload file before expansion. Its
// fields mirror the YAML keys (docs/workloads.md); defaults are filled in.
type File struct {
	Path        string // the file as given to LoadFile
	Name        string
	Description string
	API         API
	Model       string
	GPUs        int
	Dataset     Dataset
	Load        Load
	Sampling    Sampling
	Warmups     int
	Trials      TrialBudget
	Timeout     time.Duration
	SLO         SLO
	Gate        []GateRule
	// Kind is KindServing or KindCommand; Command is set for the latter.
	Kind    string
	Command Command
	// ExtraBody is merged into every request body (compact JSON object
	// with sorted keys; nil: none). Headers are extra request headers.
	ExtraBody json.RawMessage
	Headers   []Header
	// MetricPercentiles are percentiles recorded besides metrics.Stats.
	MetricPercentiles []float64
	// Capacity holds a kind: capacity file's search settings, defaults
	// filled in.
	Capacity CapacitySpec
	// Profiling overrides perfgate.yaml's profiling.when for this
	// workload's cells ("": not set). See profiling.go.
	Profiling trace.Mode

	lines lines // where each field was written, for errors found later
}

// Dataset describes where prompts come from.
type Dataset struct {
	Kind         string
	InputTokens  int     // random: prompt length; prefix-repetition: suffix length
	OutputTokens int     // max_tokens; for file datasets an override (0: from the file)
	RangeRatio   float64 // lengths uniform in [floor(L(1-r)), ceil(L(1+r))]
	PrefixTokens int     // shared prefix length (random, prefix-repetition)
	NumPrefixes  int     // distinct prefixes (prefix-repetition)
	Seed         uint64
	Path         string // file datasets, relative to the workload file
	SHA256       string
	// Required false turns a missing dataset file into a warning: the
	// file's cells are skipped instead of failing validation.
	Required bool
	TokenIDs TokenRange
	// PromptFormat is PromptText for calibrated word prompts, PromptTokenIDs
	// when the file asks for token ids, or empty: the API's default (token
	// ids for completions, uncalibrated words for chat).
	PromptFormat string
	// The replay settings of a trace: the file format (TraceJSONL or
	// TraceCSV), seconds per timestamp unit, tokens per hash id, and the
	// replayed window from the first request (0: up to load.requests).
	Format          string
	TimeScale       float64
	HashBlockTokens int
	MaxDuration     time.Duration
	// Fields renames a trace's keys or columns, by role (FieldTimestamp,
	// ...): vLLM's --timed-trace-label-* options. nil: the defaults.
	Fields map[string]string
}

// Load is the load shape. Concurrency and Rate hold one value, or several
// for a sweep.
type Load struct {
	Requests    int
	Concurrency []int
	Rate        []float64
	Burstiness  float64
	// RampUp, when set, paces requests on vLLM's ramp instead of Rate.
	RampUp *RampUp
	// SaturationShare is set (0.8) for `rate: 80%-of-saturation`: the cell
	// runs at that share of the saturation throughput an unlimited-rate
	// run measures first. Rate then holds the single placeholder 1, the
	// rate the manifest's arrivals are timed for (Manifest.At).
	SaturationShare float64
}

// lines records the line of each field that expansion may still reject.
type lines struct {
	name, path, sha256, requests, required, minTokens, numPrefixes, tokenIDs int
	promptFormat                                                             int
	rate, rampUp, burstiness                                                 int
	capacity                                                                 capacityLines
}

// cellSpec is one cell's load point.
type cellSpec struct {
	name        string
	concurrency int
	rate        float64
}

// cells expands the sweeps of f into its cells, concurrency outer and rate
// inner, named <name>, <name>@c16, <name>@r2.5 or <name>@c16@r2.5.
func (f *File) cells() []cellSpec {
	var out []cellSpec
	for _, c := range f.Load.Concurrency {
		for _, r := range f.Load.Rate {
			name := f.Name
			if len(f.Load.Concurrency) > 1 {
				name += "@c" + itoa(c)
			}
			if len(f.Load.Rate) > 1 {
				name += "@r" + formatRate(r)
			}
			out = append(out, cellSpec{name: name, concurrency: c, rate: r})
		}
	}
	return out
}

// formatRate writes a rate as the file would: "inf", "2.5", "1000".
func formatRate(r float64) string {
	if math.IsInf(r, 1) {
		return "inf"
	}
	return ftoa(r)
}
