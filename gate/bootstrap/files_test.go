package bootstrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/examples"
)

// TestRenderWorkflow: every workflow init writes comes from its example
// with the team's profile, and, since perfgate launches the server, the
// example's hand-written start step and its server-url input are gone
// while every other step stays. A renamed example step fails here, not
// on a team's runner. With INIT_WORKFLOWS_OUT=DIR it also writes them
// there (DIR/stored/, DIR/ab/), for .ci/actionlint-init.sh to lint.
func TestRenderWorkflow(t *testing.T) {
	out := os.Getenv("INIT_WORKFLOWS_OUT")
	for _, mode := range []Mode{Stored, AB} {
		plan := &Plan{Mode: mode, Why: "because.", Blocks: 24}
		for _, wf := range WorkflowsFor(mode) {
			data, err := RenderWorkflow(examples.FS, wf, "a100-qwen", plan)
			if err != nil {
				t.Fatal(err)
			}
			if out != "" {
				dir := filepath.Join(out, string(mode))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, wf.Name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			text := string(data)
			src, _ := examples.FS.ReadFile(wf.Example)
			if strings.Contains(text, examplesProfile) || !strings.Contains(text, "a100-qwen") || !strings.HasPrefix(text, "# Written by `perfgate init` from examples/"+wf.Example) || !strings.Contains(text, "PR check: because.") {
				t.Errorf("%s from %s: profile or header wrong:\n%s", wf.Name, wf.Example, text)
			}
			if strings.Contains(string(src), "max-blocks:") && !strings.Contains(text, `max-blocks: "48"`) {
				t.Errorf("%s: max-blocks is not twice the plan's 24 blocks:\n%s", wf.Name, text)
			}
			hand := strings.Contains(string(src), "- name: Start the")
			if hand && (strings.Contains(text, "- name: Start the") || strings.Contains(text, "server-url:") || strings.Contains(text, "nohup")) {
				t.Errorf("%s: the hand-written server start is still there:\n%s", wf.Name, text)
			}
			// Every other step is kept.
			for _, line := range strings.Split(string(src), "\n") {
				if strings.Contains(line, "- name:") && !strings.Contains(line, "Start the") && !strings.Contains(text, strings.TrimSpace(line)) {
					t.Errorf("%s lost the step %q", wf.Name, strings.TrimSpace(line))
				}
			}
		}
	}
	if _, err := RenderWorkflow(examples.FS, Workflow{"x.yml", "workflows/missing.yml"}, "p", &Plan{}); err == nil || !strings.Contains(err.Error(), "workflows/missing.yml") {
		t.Errorf("missing example: %v", err)
	}
}

// TestDropStartStep: the step's lines go up to the next step, and the
// blank line that separated it from the one before.
func TestDropStartStep(t *testing.T) {
	in := "steps:\n  - uses: a\n\n  - name: Start the server\n    run: |\n      x\n\n      y\n\n  - name: next\n    run: z\n"
	out, ok := dropStartStep(strings.Split(in, "\n"))
	want := "steps:\n  - uses: a\n\n  - name: next\n    run: z\n"
	if got := strings.Join(out, "\n"); !ok || got != want {
		t.Errorf("got %q (%v), want %q", got, ok, want)
	}
	if _, ok := dropStartStep([]string{"  - name: build"}); ok {
		t.Error("dropped a step that does not start a server")
	}
}

// TestConfig: perfgate.yaml before calibration has the defaults; after,
// the plan's tolerances (percentages from 100 % up, which a bare number
// would make ambiguous), trials,
// the undecidable metrics named, the A/B blocks, and why.
func TestConfig(t *testing.T) {
	s := Setup{Profile: "h100 llama", Workloads: []string{"workloads/smoke-chat-c4.yaml", "w/*.yaml"}, Engine: "vllm",
		ServerCommand: []string{"vllm", "serve", "m", "--port", "8000"}, Restarts: 5, TrialsPerRestart: 3}
	pre := string(Config(s, nil))
	for _, w := range []string{`profile: "h100 llama"`, "  - workloads/smoke-chat-c4.yaml", `  - "w/*.yaml"`,
		`command: ["vllm", "serve", "m", "--port", "8000"]`, "engine: vllm", "min: 5", "restarts: 5"} {
		if !strings.Contains(pre, w) {
			t.Errorf("before calibration, lacks %q:\n%s", w, pre)
		}
	}
	if strings.Contains(pre, "tolerances:") || strings.Contains(pre, "ab:") {
		t.Errorf("before calibration, has a plan:\n%s", pre)
	}
	p := &Plan{Mode: Widened, Why: "because the noise", Trials: 8, Tolerances: map[string]float64{"tpot_ms.p50": 0.34500000000000003, "e2el_ms.p99": 1.5, "ttft_ms.p99": 0.06},
		Undecidable: []string{"ttft_ms.p99"}}
	post := string(Config(s, p))
	for _, w := range []string{"tpot_ms.p50: 0.345\n", "e2el_ms.p99: 150%\n", "ttft_ms.p99: 0.06\n", "what would decide them: ttft_ms.p99.", "min: 8", "#   because the noise"} {
		if !strings.Contains(post, w) {
			t.Errorf("widened plan: lacks %q:\n%s", w, post)
		}
	}
	p = &Plan{Mode: AB, Why: "w", Trials: 5, Blocks: 16, BlockTrials: 2, Tolerances: map[string]float64{"tpot_ms.p50": 0.03}}
	post = string(Config(s, p))
	for _, w := range []string{"ab:\n", "  blocks: 16\n", "  block_trials: 2\n", "  max_blocks: 32\n"} {
		if !strings.Contains(post, w) {
			t.Errorf("A/B plan: lacks %q:\n%s", w, post)
		}
	}
	if strings.Contains(post, "gated:") {
		t.Errorf("init never narrows the policy's gated set:\n%s", post)
	}
	p = &Plan{Mode: Restarted, Why: "w", Trials: 8, Restarts: 4, RestartTrials: 8, Tolerances: map[string]float64{"tpot_ms.p50": 0.05}}
	post = string(Config(s, p))
	for _, w := range []string{"  min: 8\n", "  restarts: 4\n"} {
		if !strings.Contains(post, w) {
			t.Errorf("restarted plan: lacks %q:\n%s", w, post)
		}
	}
	// init's --server-env reaches the PR check's server; a secret is
	// named, never written.
	s.ServerEnv = []string{"CUDA_VISIBLE_DEVICES=0", "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123"}
	post = string(Config(s, p))
	if !strings.Contains(post, `env: ["CUDA_VISIBLE_DEVICES=0"]`) || !strings.Contains(post, "Not written here (secrets): HF_TOKEN") || strings.Contains(post, "hf_abc") {
		t.Errorf("server env:\n%s", post)
	}
}
