// Package result defines the result file: what one run of one workload cell
// produced, as versioned JSON. Load generation writes it, importers build it
// from vLLM's JSON, baselines store it, verdicts read it. Writes are atomic
// (temp file + rename) so a crash never leaves half a file behind.
package result

import (
	"encoding/json"
	"time"
)

// Schema is the schema identifier of this version of the format.
const Schema = "perfgate.result/v1"

// Result is one run of one workload cell: every trial, valid or not.
type Result struct {
	Schema   string   `json:"schema"`
	Tool     Tool     `json:"tool"`
	Workload Workload `json:"workload"`
	Server   Server   `json:"server"`
	// Fingerprint holds flat "group.key" facts about the environment
	// (gpu.name, gpu.count, env.NCCL_P2P_DISABLE, server.argv, ...). Which
	// keys must match for two results to be compared is the verdict's call.
	Fingerprint map[string]string `json:"fingerprint,omitempty"`
	StartedAt   time.Time         `json:"started_at"`
	FinishedAt  time.Time         `json:"finished_at"`
	// Complete is false when the run stopped early (interrupt, dead server,
	// tool failure). An incomplete result never passes a gate and never
	// becomes a baseline.
	Complete bool `json:"complete"`
	// IncompleteReason says why Complete is false.
	IncompleteReason string `json:"incomplete_reason,omitempty"`
	// Source says where the numbers came from: "perfgate run" or an importer
	// such as "vllm-bench import".
	Source string `json:"source,omitempty"`
	// Looks is the look of the gate run that last judged this result (see
	// Looks); nil when no gate did.
	Looks  *Looks  `json:"looks,omitempty"`
	Trials []Trial `json:"trials"`
	// Warmups is the number of unmeasured requests sent before each trial.
	Warmups int `json:"warmups"`
	// Detailed names the per-request record file written beside the result
	// (--save-detailed), relative to the result file's directory.
	Detailed string `json:"detailed,omitempty"`
	// Notes are human-readable remarks (e.g. why a run was cut short).
	Notes []string `json:"notes,omitempty"`
	// Provenance is set on baseline files only: where the promoted run came
	// from. A result with provenance is still a result.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Arm is "a" or "b" when the result is one arm of an interleaved A/B
	// experiment (`perfgate ab`), empty otherwise. AB then records the
	// experiment's block order, so either arm's file says how the pair
	// was run and `compare`, `export` and `baseline update` still work on
	// it as on any result.
	Arm string `json:"arm,omitempty"`
	AB  *AB    `json:"ab,omitempty"`
	// Saturation is set when the cell's rate is a share of saturation
	// (the two-step protocol): what saturation was measured and the
	// absolute rate the trials ran at.
	Saturation *Saturation `json:"saturation,omitempty"`
	// BaselineRate is set on a result of a share-of-saturation cell's
	// comparison at the baseline's absolute rate (cell
	// name@baseline-rate): which cell and rate it stands for.
	BaselineRate *BaselineRate `json:"baseline_rate,omitempty"`
}

// AB is the design of the interleaved experiment a result's arm came
// from: every block of both arms in the order they ran.
type AB struct {
	// Order is the arms of the blocks in run order, one letter per block
	// ("ABBABAAB").
	Order string `json:"order"`
	// Seed is the seed a random balanced order was drawn from (0: the
	// fixed ABBA BAAB pattern).
	Seed uint64 `json:"seed,omitempty"`
	// Blocks are all blocks of the experiment, both arms, in run order.
	Blocks []Block `json:"blocks"`
}

// Block is one block of an A/B experiment: a stretch of trials of one arm,
// run on one server start when the arms are restarted per block.
type Block struct {
	// Index is the block's 1-based position in the run order.
	Index int    `json:"index"`
	Arm   string `json:"arm"`
	// StartupS is the time from launching the arm's server to ready and
	// warmed up, in seconds (0 when the block reused a running server):
	// the price of restarting per block.
	StartupS  float64   `json:"startup_s,omitempty"`
	StartedAt time.Time `json:"started_at"`
	// Trials is the number of measured trials of the block.
	Trials int `json:"trials"`
}

// Provenance records how a result became a baseline.
type Provenance struct {
	GitSHA        string    `json:"git_sha,omitempty"`
	GitRef        string    `json:"git_ref,omitempty"`
	PromotedAt    time.Time `json:"promoted_at"`
	ServerVersion string    `json:"server_version,omitempty"`
	// How says what promoted it ("perfgate baseline update --from results/").
	How string `json:"how,omitempty"`
	// Rules are the gate rules in force for this cell when it was promoted
	// (the policy with the workload's own gate list applied), sorted by
	// metric, and RulesHash their digest. They are the trusted side's
	// rules: a later gate applies the stricter of these and the checked-out
	// ones (docs/baselines.md, "Rules from the trusted side").
	Rules     []Rule `json:"rules,omitempty"`
	RulesHash string `json:"rules_hash,omitempty"`
	// Warnings are caveats recorded at promotion, e.g. a run kept with
	// --accept-noisy although its spread was far above the history's.
	Warnings []string `json:"warnings,omitempty"`
	// Accepted, when set, says why this promotion's change of level is
	// accepted (`baseline update --accept-change`): the drift guard never
	// compares across it.
	Accepted string `json:"accepted,omitempty"`
	// Settings are the policy settings in force at promotion that could
	// loosen a later verdict; nil for baselines promoted before they were
	// recorded. Like Rules they are the trusted side's: a later gate
	// applies the stricter of these and the checked-out ones.
	Settings *Settings `json:"settings,omitempty"`
}

// Settings are the verdict settings stored with a baseline besides its
// rules (docs/baselines.md, "Rules from the trusted side"): a pull request
// that lowers alpha, raises the assumed between-session noise or turns
// the drift guard off would otherwise turn its own regression into a pass
// or an inconclusive.
type Settings struct {
	// Alpha is policy.alpha.
	Alpha float64 `json:"alpha"`
	// AssumedBetween is policy.assumed_between (nil: the documented
	// per-metric defaults).
	AssumedBetween map[string]float64 `json:"assumed_between,omitempty"`
	// ReferenceDays and ReferenceRuns are history.reference_days and
	// history.reference_runs, the drift guard's window (days 0: off).
	ReferenceDays float64 `json:"reference_days"`
	ReferenceRuns int     `json:"reference_runs"`
}

// Rule is one gate rule as stored with a baseline: whether metric is gated
// and at which tolerance (a fraction, or points for ratio metrics). It
// mirrors verdict.Rule, which this package cannot import.
type Rule struct {
	Metric    string  `json:"metric"`
	Gated     bool    `json:"gated"`
	Tolerance float64 `json:"tolerance"`
}

// Tool identifies the program that wrote the file.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Workload identifies the workload cell that was run. Hash is the manifest
// hash: two results are comparable only if their hashes are equal.
type Workload struct {
	Name string `json:"name"`
	Cell string `json:"cell"`
	Hash string `json:"hash"`
	// Spec is the cell's workload specification as JSON, kept so a result
	// is self-describing (report shapes, gate overrides) without the file.
	Spec json.RawMessage `json:"spec,omitempty"`
	// Calibration is how a text-prompt cell's word counts were fitted to
	// the server's tokenizer before its first trial; nil for other cells.
	Calibration *PromptCalibration `json:"prompt_calibration,omitempty"`
}

// Server describes the server under test. URL never carries credentials:
// writers strip user info (see gate/redact.URL).
type Server struct {
	URL     string   `json:"url"`
	Model   string   `json:"model"`
	Version string   `json:"version,omitempty"`
	Models  []string `json:"models,omitempty"`
	// MaxModelLen is the context length /v1/models reported, 0 if unknown.
	MaxModelLen int `json:"max_model_len,omitempty"`
	// GPUs is the GPU count throughput is normalised by (0: unknown).
	GPUs int `json:"gpus,omitempty"`
	// Engine is the engine profile the run used (gate/engine: vllm,
	// sglang, ollama, llamacpp, tgi, openai), configured or detected.
	Engine string `json:"engine,omitempty"`
	// LogTail is the end of the server's log when perfgate launched it and
	// it failed.
	LogTail string `json:"log_tail,omitempty"`
}

// Trial is one repetition of the cell. Values is a flat map from metric id
// (see package metrics) to number.
type Trial struct {
	Index         int    `json:"index"`
	Valid         bool   `json:"valid"`
	InvalidReason string `json:"invalid_reason,omitempty"`
	// Look is the verdict look this trial was added in (0: the first batch;
	// adaptive extra trials get 1, 2, ...).
	Look int `json:"look,omitempty"`
	// Block is the 1-based A/B block (Result.AB) the trial ran in; 0 when
	// the result is not an arm of an A/B experiment.
	Block int `json:"block,omitempty"`
	// Start is the 1-based server start the trial ran in when the
	// candidate's trials were spread over several starts of a launched
	// server (workload trials.restarts); 0 when the result is one session,
	// as every file written before the key existed is. The verdict counts
	// the distinct starts as the candidate's sessions, so its
	// between-session term shrinks as 1/starts.
	Start     int            `json:"start,omitempty"`
	DurationS float64        `json:"duration_s"`
	Completed int            `json:"completed"`
	Failed    int            `json:"failed"`
	Errors    map[string]int `json:"errors,omitempty"`
	// Resent counts requests sent a second time on a fresh connection
	// because the server had closed the kept-alive one before answering
	// (docs/run.md#connections). They are not failures; their latency
	// includes the closed attempt.
	Resent int `json:"resent,omitempty"`
	// ErrorSamples keeps the first bytes of a few error bodies, by type.
	ErrorSamples map[string]string  `json:"error_samples,omitempty"`
	Values       map[string]float64 `json:"values"`
	// Histograms maps a distribution name (e.g. "ttft_ms") to its
	// HdrHistogram, base64 V2-encoded, values in microseconds.
	Histograms map[string]string `json:"histograms,omitempty"`
	// Server holds what the server's /metrics said about this trial:
	// counter deltas, gauge means and maxima, histogram means.
	Server map[string]float64 `json:"server,omitempty"`
	// Health is what perfgate saw of the runner during the trial (GPU
	// clocks, throttling, other GPU processes, host load); nil when it was
	// not sampled.
	Health *Health `json:"health,omitempty"`
	// Warnings are caveats about this trial that did not invalidate it.
	Warnings []string `json:"warnings,omitempty"`
	// Tokens says how the output tokens of each streamed chunk were
	// counted (docs/metrics.md); nil in imported results and in results
	// written before perfgate recorded it.
	Tokens *TokenCounting `json:"token_counting,omitempty"`
	// Capacity is the search of a capacity cell's trial: every probe and
	// the capacity found (its values are in Values too).
	Capacity *Capacity `json:"capacity,omitempty"`
}

// TokenCounting records how a trial's per-chunk token counts were found,
// which decides whether itl_token_ms is exact.
type TokenCounting struct {
	// Method is the method of most successful requests: usage_cumulative,
	// usage_per_chunk, tokenize, even_split or one_per_chunk.
	Method string `json:"method"`
	// Requests counts successful requests per method when they differ.
	Requests map[string]int `json:"requests,omitempty"`
	// TokensPerChunk is the mean output tokens per token message.
	TokensPerChunk float64 `json:"tokens_per_chunk"`
	// ITLTokenApprox is true when some per-chunk counts were estimated
	// (tokenize, even_split): itl_token_ms then divides each chunk gap among
	// estimated tokens, as SGLang's bench_serving divides it among reported
	// ones.
	ITLTokenApprox bool `json:"itl_token_approximate,omitempty"`
}

// ValidTrials returns the trials that may enter a verdict.
func (r *Result) ValidTrials() []Trial {
	var out []Trial
	for _, t := range r.Trials {
		if t.Valid {
			out = append(out, t)
		}
	}
	return out
}

// Samples returns the values of metric id over the valid trials that have it.
func (r *Result) Samples(id string) []float64 {
	var out []float64
	for _, t := range r.Trials {
		if v, ok := t.Values[id]; ok && t.Valid {
			out = append(out, v)
		}
	}
	return out
}
