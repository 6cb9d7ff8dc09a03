package verdict

// ExplanationSchema identifies the JSON encoding of Explanation. The
// explanation is an optional, additive part of a v2 comparison: a reader
// that does not know it ignores the "explanation" key, and the block
// carries its own version so it can grow without touching SchemaID.
const ExplanationSchema = "perfgate.explanation/v1"

// Explanation says where the time of a regression went: for each
// regressed workload, how its end-to-end latency change splits into
// phases and which of the server's own /metrics figures moved, and, over
// all of them, the findings: workloads whose change one phase carries,
// grouped so that one cause reads as one finding instead of a dozen
// regressed rows. Package gate/explain computes it; the verdict never
// depends on it.
type Explanation struct {
	Schema string `json:"schema"`
	// CILevel is the two-sided confidence level of every interval below.
	CILevel float64 `json:"ci_level"`
	// Findings group the regressed workloads by the phase that carries
	// their change, largest group first.
	Findings []Finding `json:"findings"`
	// Workloads holds the phase split of each regressed workload.
	Workloads []PhaseSplit `json:"workloads"`
	// Warnings say which workloads could not be split and what would
	// make them splittable.
	Warnings []string `json:"warnings,omitempty"`
	// Kernels compares one profiled trial per arm of the worst regressed
	// workload, when the run was profiled (`profile:`); nil otherwise.
	Kernels *KernelDiff `json:"kernels,omitempty"`
}

// KernelDiff is what the torch-profiler traces of both arms say (package
// gate/trace): the kernels whose time per engine step moved most. A
// profile that failed carries only Error; it never fails the gate.
type KernelDiff struct {
	Workload string `json:"workload"`
	// BaselineTrace and CandidateTrace are the trace files, as the
	// reader should find them (the output directory, uploaded as the
	// run's artifact).
	BaselineTrace  string `json:"baseline_trace,omitempty"`
	CandidateTrace string `json:"candidate_trace,omitempty"`
	BaselineSteps  int    `json:"baseline_steps,omitempty"`
	CandidateSteps int    `json:"candidate_steps,omitempty"`
	// Ops are the kernels that moved most per step, either way, in the
	// order of the time they added (largest first).
	Ops []KernelChange `json:"ops,omitempty"`
	// Error says why there is no comparison (a trace that did not parse,
	// an engine without profiling) and what would give one.
	Error string `json:"error,omitempty"`
	// CandidateOnly is set when only the candidate was profiled and the
	// baseline has no op summary to compare with: Ops are then the
	// candidate's kernels by time per step (Baseline 0), and Note says
	// what would give a diff.
	CandidateOnly bool   `json:"candidate_only,omitempty"`
	Note          string `json:"note,omitempty"`
}

// KernelChange is one kernel's time per engine step in both arms, in
// microseconds, and its relative change in percent (0 for a new kernel).
type KernelChange struct {
	Name      string  `json:"name"`
	Baseline  float64 `json:"baseline_us"`
	Candidate float64 `json:"candidate_us"`
	Delta     float64 `json:"delta_us"`
	Change    float64 `json:"change"`
}

// Phase names a part of a request's end-to-end latency, or the carrier of
// a change.
type Phase string

const (
	// PhaseQueue is the server's wait before scheduling a request
	// (vllm:request_queue_time_seconds).
	PhaseQueue Phase = "queue"
	// PhasePrefill is TTFT minus the server queue.
	PhasePrefill Phase = "prefill"
	// PhaseDecode is E2EL minus TTFT; as the carrier of a change it means
	// the time per output token moved.
	PhaseDecode Phase = "decode"
	// PhaseLength carries a change when the decode time moved because
	// requests produced more (or fewer) output tokens, not because each
	// token took longer.
	PhaseLength Phase = "output-length"
	// PhaseNone: no phase's mean moved beyond its interval; the regression
	// is in a tail percentile or a rate, not in the mean latency.
	PhaseNone Phase = "none"
)

// Finding is one cause shared by one or more regressed workloads.
type Finding struct {
	// Phase carries the change in every workload of the finding.
	Phase Phase `json:"phase"`
	// Workloads are the cells whose change this phase carries.
	Workloads []string `json:"workloads"`
	// Measure names what ChangeLow..ChangeHigh is the change of:
	// "per-token decode time", "prefill time", "server queue time",
	// "output tokens per request", or "" for PhaseNone.
	Measure string `json:"measure,omitempty"`
	// ChangeLow and ChangeHigh are the smallest and largest relative
	// change of Measure over the workloads, in percent.
	ChangeLow  float64 `json:"change_low"`
	ChangeHigh float64 `json:"change_high"`
	// ShareLow and ShareHigh bound the part of the E2EL change this phase
	// explains, in percent, over the Shared workloads whose E2EL moved
	// beyond its interval (a share of a change within the noise means
	// nothing: it can be any size, or negative).
	ShareLow  float64 `json:"share_low"`
	ShareHigh float64 `json:"share_high"`
	Shared    int     `json:"shared"`
	// Unchanged lists the phases whose interval holds zero in every
	// workload of the finding ("prefill unchanged").
	Unchanged []Phase `json:"unchanged,omitempty"`
	// Cells are the regressed gated cells of these workloads
	// ("workload/metric"): the rows that follow from the one cause.
	Cells []string `json:"cells"`
	// Counters are the server figures that moved beyond their trial
	// spread in any workload of the finding.
	Counters []CounterDelta `json:"counters,omitempty"`
}

// PhaseSplit is one regressed workload's E2EL change split into phases.
// Times are the median request's (each trial's per-request medians, the
// server queue's mean), averaged over valid trials, in milliseconds;
// changes carry the natural sign (positive: slower).
type PhaseSplit struct {
	Workload string `json:"workload"`
	// ServerQueue is false when the server's queue time was not recorded
	// in both arms: the queue phase is then zero and TTFT counts whole as
	// prefill.
	ServerQueue bool `json:"server_queue"`
	// E2EL is the change of E2EL p50, the sum of the phases.
	E2EL PhaseChange `json:"e2el"`
	// Phases are queue, prefill and decode, in request order.
	Phases []PhaseChange `json:"phases"`
	// PerToken is the decode time per output token after the first
	// (decode time over output tokens minus one, token-weighted), and
	// Tokens the mean output tokens per request.
	PerToken PhaseChange `json:"per_token"`
	Tokens   PhaseChange `json:"tokens"`
	// ClientQueue is the time requests waited for a concurrency slot
	// before being sent. It is not part of E2EL: under a concurrency cap
	// it follows every other phase (slower requests free slots later).
	ClientQueue PhaseChange `json:"client_queue"`
	// Carrier is the phase that carries the change (see Phase).
	Carrier Phase `json:"carrier"`
	// Cells are the workload's regressed gated metrics.
	Cells []string `json:"cells"`
	// Counters are the server's own /metrics figures of both arms.
	Counters []CounterDelta `json:"counters,omitempty"`
}

// PhaseChange is one phase's mean in both arms and its change.
type PhaseChange struct {
	Phase     Phase   `json:"phase,omitempty"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	// Delta is Candidate - Baseline, with its confidence interval
	// (Welch's, over trial means).
	Delta     float64 `json:"delta"`
	DeltaLow  float64 `json:"delta_low"`
	DeltaHigh float64 `json:"delta_high"`
	// Change is Delta relative to the phase's own baseline mean, percent
	// (0 when that mean is 0).
	Change float64 `json:"change"`
	// Share is Delta as a percentage of the E2EL delta: the part of the
	// latency change this phase explains (shares of queue, prefill and
	// decode add up to 100).
	Share float64 `json:"share"`
	// Moved is true when the interval excludes zero.
	Moved bool `json:"moved"`
	// NoInterval is true when an arm had fewer than two trials.
	NoInterval bool `json:"no_interval,omitempty"`
}

// CounterDelta is one server figure from /metrics in both arms: the median
// over valid trials, the range over them, and whether the ranges part.
type CounterDelta struct {
	// Key is the figure in result.Trial.Server ("vllm:num_preemptions_total.delta").
	Key string `json:"key"`
	// Series is the engine's own name of the series it comes from (SGLang's
	// sglang:num_queue_reqs for num_requests_waiting.mean), from the
	// engine profile.
	Series    string  `json:"series,omitempty"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	BaseMin   float64 `json:"base_min"`
	BaseMax   float64 `json:"base_max"`
	CandMin   float64 `json:"cand_min"`
	CandMax   float64 `json:"cand_max"`
	// Flagged is true when the two arms' trial ranges do not overlap: the
	// figure moved beyond its own trial spread. FalseFlag is the chance of
	// that with no real change (every trial order equally likely):
	// 2 / C(n_b + n_c, n_b).
	Flagged   bool    `json:"flagged"`
	FalseFlag float64 `json:"false_flag"`
}
