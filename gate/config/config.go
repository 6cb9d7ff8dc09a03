// Package config loads perfgate's run configuration: perfgate.yaml, then
// PERFGATE_* environment variables, then command-line flags, each overriding
// the one before, on top of Default(). It is the only package that uses
// viper; everything else receives the plain Config struct it fills.
//
// A perfgate.yaml (every key is optional; unknown keys are errors that name
// the file, line and key):
//
//	profile: h100-llama8b            # baselines/<profile>/ and the PR comment's marker
//	workloads: [workloads/smoke/*.yaml]
//	baselines: baselines
//	output: perfgate-out
//	server:
//	  url: http://127.0.0.1:8000     # where the candidate serves
//	  command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --port, "8000"]
//	  env: [CUDA_VISIBLE_DEVICES=0]  # NAME=value, added to the server's environment
//	  workdir: .
//	  ready_timeout: 10m
//	  log: perfgate-out/server.log
//	  engine: auto                   # vllm, sglang, ollama, llamacpp, tgi, openai
//	policy:
//	  alpha: 0.01                    # family-wise false-alarm bound per gate run
//	  tolerances: {tpot_ms.p50: 0.03, ttft_ms.p99: 0.08}
//	  gated: [ttft_ms.p50, tpot_ms.p50, output_throughput]
//	  assumed_between: {"*": 0.02}   # between-session CV when not calibrated
//	trials:
//	  min: 5                         # per workload before the first comparison
//	  max: 10                        # per workload, including extra looks
//	  budget: 30m                    # wall-clock bound over all extra trials
//	  restarts: 1                    # server starts the first trials spread over (server.command only)
//	github:
//	  comment: always                # always, on-change, not-pass or never
//	  fail_on_inconclusive: false
//	calibrate:                       # perfgate calibrate
//	  restarts: 5                    # server starts (sessions), at least 3
//	  trials: 3                      # trials per start, at least 2
//	history:
//	  reference_days: 30             # drift guard: compare with runs this old (0: off)
//	  reference_runs: 3
//	ab:                              # perfgate ab: two arms interleaved on one runner
//	  a: {env: [NCCL_P2P_DISABLE=1]} # each arm: command, env, args, url
//	  b: {env: [NCCL_P2P_DISABLE=0]} # (an arm without a command uses server.command)
//	  blocks: 8                      # blocks in the balanced order (0: the default)
//	  block_trials: 2                # trials of every workload per block (0: the default)
//	  seed: 0                        # 0: the fixed ABBA BAAB order; else a seeded balanced order
//	  max_blocks: 16                 # adaptive looks add blocks up to this (0: no extra blocks)
//	profiling:                       # kernel profiles beside the verdict (docs/report.md)
//	  when: on-regression            # never (default), on-regression or always
//	  dir: /tmp/vllm-traces          # where the server writes traces (its VLLM_TORCH_PROFILER_DIR)
//	  requests: 32                   # requests of the one profiled trial (0: 32)
//	limits:                          # trial validity: a trial beyond one is invalid
//	  max_failure_share: 0.01        # failed requests (--max-failure-share)
//	  max_dispatch_lag_ms: 10        # client dispatch lag p99 (--max-dispatch-lag-ms)
//	  max_tokens_per_chunk: 8        # output tokens per token message (0: not checked)
//
// Environment variables are PERFGATE_ followed by the key path in upper case
// with "." replaced by "_": PERFGATE_SERVER_URL, PERFGATE_POLICY_ALPHA,
// PERFGATE_GITHUB_TOKEN. Lists are comma-separated; server.command is split
// like a shell would split it (quotes, backslashes), without any expansion.
package config

import (
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/github"
)

// Config is the effective configuration of one perfgate invocation.
type Config struct {
	// Profile names the hardware + model + serving-config combination the
	// baselines were recorded on: baselines live in <Baselines>/<Profile>/.
	Profile string `mapstructure:"profile"`
	// Workloads are workload file paths or glob patterns.
	Workloads []string `mapstructure:"workloads"`
	// Baselines is the baseline store's root directory.
	Baselines string `mapstructure:"baselines"`
	// Output is the directory for results, the comparison JSON and reports.
	Output string `mapstructure:"output"`
	Server Server `mapstructure:"server"`
	Policy Policy `mapstructure:"policy"`
	Trials Trials `mapstructure:"trials"`
	GitHub GitHub `mapstructure:"github"`
	// Calibrate sizes `perfgate calibrate`.
	Calibrate Calibrate `mapstructure:"calibrate"`
	// History configures what the gate takes from the baseline history.
	History History `mapstructure:"history"`
	// AB configures `perfgate ab` (docs/ab.md).
	AB AB `mapstructure:"ab"`
	// Profiling says when a run takes a kernel profile (profiling.go).
	Profiling Profiling `mapstructure:"profiling"`
	// Limits are the trial validity limits (limits.go).
	Limits Limits `mapstructure:"limits"`
}

// AB configures `perfgate ab`: the two arms and the block design. Zero
// counts leave the command's defaults (gate/ab), so a file need only name
// what differs between the arms.
type AB struct {
	A ABArm `mapstructure:"a"`
	B ABArm `mapstructure:"b"`
	// Blocks is the number of blocks in the balanced order, both arms
	// together (an even number: each arm gets half).
	Blocks int `mapstructure:"blocks"`
	// BlockTrials is the number of measured trials of every workload in
	// one block.
	BlockTrials int `mapstructure:"block_trials"`
	// Seed draws a random balanced order; 0 keeps the fixed ABBA BAAB
	// pattern.
	Seed int `mapstructure:"seed"`
	// MaxBlocks bounds the blocks run over every look: more blocks are
	// added only while a gated cell is inconclusive. 0 adds none.
	MaxBlocks int `mapstructure:"max_blocks"`
}

// ABArm is one arm of `perfgate ab`. Command, when set, launches the arm's
// server (restarted for every block); without it the arm uses
// server.command. Env and Args overlay the arm's command: Env adds
// NAME=value entries to its environment, Args is appended to its argv.
// URL is where the arm serves: alone (no command anywhere) it names a
// server that is already up, which then serves every block of the arm.
type ABArm struct {
	Command Argv     `mapstructure:"command"`
	Env     []string `mapstructure:"env"`
	Args    Argv     `mapstructure:"args"`
	URL     string   `mapstructure:"url"`
}

// History configures what the gate takes from the baseline history
// (docs/baselines.md): the drift guard's reference window.
type History struct {
	// ReferenceDays: the drift guard compares the candidate with the
	// newest ReferenceRuns runs promoted at least this many days before
	// it (0 turns the drift guard off).
	ReferenceDays float64 `mapstructure:"reference_days"`
	// ReferenceRuns is how many runs the reference window holds.
	ReferenceRuns int `mapstructure:"reference_runs"`
}

// Calibrate says how many server sessions `perfgate calibrate` starts and
// how many trials it runs in each, to measure the noise between sessions
// and within them (docs/calibrate.md).
type Calibrate struct {
	// Restarts is the number of server starts (sessions), at least 3: a
	// between-session variance from two sessions rests on one difference.
	Restarts int `mapstructure:"restarts"`
	// Trials is the number of measured trials per start, at least 2, so
	// each session also shows its within-session spread.
	Trials int `mapstructure:"trials"`
}

// Server says where the candidate serves and, optionally, how to launch it.
type Server struct {
	// URL is the server's base URL (scheme, host, port; no /v1).
	URL string `mapstructure:"url"`
	// Command, when set, is the argv that launches the server (no shell).
	Command Argv `mapstructure:"command"`
	// Env holds NAME=value entries added to the launched server's
	// environment. A list rather than a map because viper folds map keys to
	// lower case, and environment variable names are case-sensitive.
	Env []string `mapstructure:"env"`
	// Workdir is the launched server's working directory.
	Workdir string `mapstructure:"workdir"`
	// ReadyTimeout bounds the wait for the server to become ready, launched
	// (server.command) or not (server.url).
	ReadyTimeout time.Duration `mapstructure:"ready_timeout"`
	// Log is the file the launched server's output goes to.
	Log string `mapstructure:"log"`
	// GPUs is the number of GPUs the server uses, for per-GPU throughput
	// (output_throughput_per_gpu, ...) of workloads that set no gpus of
	// their own; 0 means unknown.
	GPUs int `mapstructure:"gpus"`
	// Engine is the server's engine profile (gate/engine): vllm, sglang,
	// ollama, llamacpp, tgi, openai, or auto (the default: asked of the
	// server, else read from server.command, else the generic openai). It
	// decides the readiness probe, the max-tokens fields, the prefix-cache
	// reset and how /metrics are read.
	Engine string `mapstructure:"engine"`
}

// Policy tunes the verdict. Zero values leave the verdict's own defaults.
type Policy struct {
	// Alpha bounds the family-wise false-alarm rate of one gate run.
	Alpha float64 `mapstructure:"alpha"`
	// Tolerances maps metric ids to practical margins (fractions, 0.03 = 3 %).
	Tolerances map[string]float64 `mapstructure:"tolerances"`
	// Gated lists the metric ids that can fail the gate; empty means the
	// verdict's default set.
	Gated []string `mapstructure:"gated"`
	// AssumedBetween is the between-session CV (a fraction) assumed per
	// metric id, or for every metric under "*", when neither calibration
	// nor history measured it; unset metrics get the verdict's documented
	// defaults (docs/statistics.md). 0 says both arms share one session.
	AssumedBetween map[string]float64 `mapstructure:"assumed_between"`
}

// Trials bounds the adaptive extra trials run while cells are inconclusive.
type Trials struct {
	// Min trials are run for every workload before the first comparison.
	// It was policy.min_trials, a name that also meant "fewer trials than
	// this are low-confidence" in the verdict (see renamed in check.go).
	Min int `mapstructure:"min"`
	// Max is the most trials per workload, first look included.
	Max int `mapstructure:"max"`
	// Budget bounds the wall-clock time spent on extra trials in one run.
	Budget time.Duration `mapstructure:"budget"`
	// Restarts is the number of server starts a launched server's first
	// look is spread over (the workloads' trials.restarts default; 0 or 1:
	// one session). Each start is a session of its own to the verdict, so
	// the candidate's between-session noise shrinks as 1/Restarts.
	Restarts int `mapstructure:"restarts"`
}

// GitHub holds the settings of the PR comment and of GitHub Actions.
type GitHub struct {
	// Comment says when the gate posts or updates its PR comment: always,
	// on-change (a new comment when the verdict or the regressed cells
	// changed, else an edit), not-pass (only once something did not pass)
	// or never. true and false, the setting's old boolean values, are
	// read as always and never; Load stores the canonical name.
	Comment CommentMode `mapstructure:"comment"`
	// FailOnInconclusive turns an inconclusive verdict into a failed step.
	FailOnInconclusive bool `mapstructure:"fail_on_inconclusive"`
	// Token authenticates API calls. Best left out of files: set it through
	// PERFGATE_GITHUB_TOKEN or the Action's github-token input. It is never
	// printed (see Redacted).
	Token string `mapstructure:"token"`
	// Repository (owner/name) and PR say which pull request the comment
	// goes to from a CI that is not GitHub Actions (or none): flags --repo
	// and --pr, PERFGATE_GITHUB_REPOSITORY and PERFGATE_GITHUB_PR. They win
	// over what Buildkite's or GitLab's own variables say (docs/ci.md).
	Repository string `mapstructure:"repository"`
	PR         int    `mapstructure:"pr"`
}

// CommentMode is the github.comment setting: gate/github's modes, which
// it implements, so the setting and the publisher read one set of words.
type CommentMode = github.CommentMode

// The comment modes (github.CommentMode).
const (
	CommentAlways   = github.CommentAlways
	CommentOnChange = github.CommentOnChange
	CommentNotPass  = github.CommentNotPass
	CommentNever    = github.CommentNever
)

// canonicalComment returns m with the boolean aliases resolved
// (github.ParseCommentMode), and whether m is a known mode. Unlike the
// publisher, the setting refuses an empty mode: it defaults to always.
func canonicalComment(m CommentMode) (CommentMode, bool) {
	if strings.TrimSpace(string(m)) == "" {
		return m, false
	}
	c, err := github.ParseCommentMode(string(m))
	if err != nil {
		return m, false
	}
	return c, true
}

// Default returns the configuration used for every key that no file,
// environment variable or flag sets.
func Default() Config {
	return Config{
		Profile:   "default",
		Baselines: "baselines",
		Output:    "perfgate-out",
		Server: Server{
			ReadyTimeout: 10 * time.Minute,
		},
		Policy: Policy{
			Alpha: 0.01,
		},
		Trials: Trials{
			Min:    5,
			Max:    10,
			Budget: 30 * time.Minute,
		},
		GitHub: GitHub{
			Comment: CommentAlways,
		},
		Calibrate: Calibrate{
			Restarts: 5,
			Trials:   3,
		},
		History: History{ReferenceDays: 30, ReferenceRuns: 3},
		Limits:  defaultLimits(),
	}
}

// EnvName is the environment variable that overrides key (a dotted path
// such as "server.url").
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// EnvPrefix starts every environment variable perfgate reads as configuration.
const EnvPrefix = "PERFGATE_"

// APIKeyEnv is the environment variable that holds the server's API key.
// It is perfgate's but not a setting: the key is read by the commands that
// send requests (APIKey) and never enters a Config, so `perfgate config`
// cannot print it and no file can hold it. Load knows it, so it does not
// warn that it "matches no setting".
const APIKeyEnv = EnvPrefix + "API_KEY"

// commandEnv are the PERFGATE_ variables the commands read themselves
// rather than as settings (the API key, the merge base, the CI token, the
// runner-health mode): Load does not warn that they match no setting.
var commandEnv = map[string]bool{
	APIKeyEnv:                   true,
	EnvPrefix + "MERGE_BASE":    true,
	EnvPrefix + "GITHUB_TOKEN":  true,
	EnvPrefix + "RUNNER_HEALTH": true,
}

// APIKey returns the server's API key from the environment: PERFGATE_API_KEY,
// else OPENAI_API_KEY (what OpenAI clients and vLLM's own benchmark read).
func APIKey(getenv func(string) string) string {
	if k := getenv(APIKeyEnv); k != "" {
		return k
	}
	return getenv("OPENAI_API_KEY")
}
