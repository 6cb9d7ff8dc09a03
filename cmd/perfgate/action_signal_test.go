package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// With PERFGATE_TEST_AS_MAIN=1 the test binary is perfgate itself, so the
// Action's shell can run it as the step does.
func TestMain(m *testing.M) {
	if os.Getenv("PERFGATE_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// actionStep returns the `run` script and the env names of the action.yml
// step with id.
func actionStep(t *testing.T, id string) (script string, env []string) {
	t.Helper()
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []struct {
				ID    string            `yaml:"id"`
				Shell string            `yaml:"shell"`
				Run   string            `yaml:"run"`
				Env   map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	for _, s := range action.Runs.Steps {
		if s.ID == id {
			if s.Shell != "bash" {
				t.Fatalf("step %s: shell %q, this harness runs bash", id, s.Shell)
			}
			for k := range s.Env {
				env = append(env, k)
			}
			return s.Run, env
		}
	}
	t.Fatalf("action.yml has no step %q", id)
	return "", nil
}

// TestActionCancelWritesPartialResults cancels the Action's gate step the
// way the GitHub runner cancels a job: SIGINT to the step's shell (only
// the shell, as the runner does), SIGTERM 7.5 s later if it still runs.
// Requests are in flight (each takes about 20 s). The step must exit 3
// with the partial result written and marked incomplete, before the
// SIGTERM: the runner SIGKILLs 2.5 s after it.
func TestActionCancelWritesPartialResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Action's shell step against the simulator for several seconds")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	termAfter := 7500 * time.Millisecond
	script, names := actionStep(t, "perfgate")

	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DecodeScale = 10 // about 10 ms per token: 2000 tokens take 20 s
	srv := sim.New(cfg)
	var completions atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			completions.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	defer func() { ts.Close(); srv.Close() }()

	dir := t.TempDir()
	wl := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(wl, []byte(`name: long
api: completions
dataset: {kind: random, input_tokens: 32, output_tokens: 2000, seed: 1}
load: {requests: 4, concurrency: 4, rate: inf}
sampling: {temperature: 0, ignore_eos: true}
warmups: 0
trials: {min: 2, max: 2}
timeout: 60s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	scriptFile := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ghOutput := filepath.Join(dir, "github_output")
	out := filepath.Join(dir, "out")
	values := map[string]string{
		"PERFGATE": os.Args[0], "IN_MODE": "gate", "IN_CONFIG": "", "IN_PROFILE": "sig", "IN_WORKLOADS": wl,
		"IN_SERVER_URL": ts.URL, "IN_SERVER_COMMAND": "", "IN_BASELINES": filepath.Join(dir, "baselines"),
		"IN_TRIALS": "2", "IN_RESTARTS": "", "IN_COMMENT": "false", "IN_FAIL_ON_INCONCLUSIVE": "", "IN_FROM": "", "GITHUB_TOKEN": "",
		"IN_ALPHA": "", "IN_MAX_TRIALS": "", "IN_BUDGET": "", "IN_OUTPUT": "", "IN_SHARD": "", "IN_GPUS": "", "IN_ALLOW_MISSING": "false",
		// The upload is on, so the step resolves the output directory and
		// profile with perfgate config before starting the gate.
		"IN_UPLOAD_ARTIFACT": "true", "IN_ARTIFACT_NAME": "",
		"ACTION_T0": "0", "ACTION_BIN_SOURCE": "none", "ACTION_CACHE_HIT": "true",
		"IN_MERGE_BASE": "", "PR_BASE_SHA": "", "IN_ALLOW_BASELINE_CHANGE": "false", "IN_ACCEPT_NOISY": "false",
		"IN_A_COMMAND": "", "IN_B_COMMAND": "", "IN_A_ENV": "", "IN_B_ENV": "", "IN_A_ARGS": "", "IN_B_ARGS": "",
		"IN_A_URL": "", "IN_B_URL": "", "IN_BLOCKS": "", "IN_BLOCK_TRIALS": "", "IN_SEED": "", "IN_MAX_BLOCKS": "",
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_OUTPUT=" + ghOutput, "GITHUB_PATH=" + filepath.Join(dir, "github_path"),
		"PERFGATE_OUTPUT=" + out, "PERFGATE_TEST_AS_MAIN=1"}
	for _, n := range names {
		v, ok := values[n]
		if !ok {
			t.Fatalf("action.yml step env %s is new to this harness: give it a value", n)
		}
		env = append(env, n+"="+v)
	}
	// The runner's invocation for `shell: bash`.
	step := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", scriptFile)
	step.Env = env
	step.Dir = dir
	var logs strings.Builder
	step.Stdout, step.Stderr = &logs, &logs
	if err := step.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- step.Wait() }()
	defer step.Process.Kill()

	for deadline := time.Now().Add(30 * time.Second); completions.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no request reached the server\n%s", logs.String())
		}
	}
	time.Sleep(300 * time.Millisecond) // the requests are streaming
	cancelled := time.Now()
	if err := step.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err2 error
	termed := false
	select {
	case err2 = <-exited:
	case <-time.After(termAfter):
		termed = true
		step.Process.Signal(syscall.SIGTERM)
		select {
		case err2 = <-exited:
		case <-time.After(2500 * time.Millisecond):
			step.Process.Kill()
			err2 = <-exited
		}
	}
	took := time.Since(cancelled)
	code := step.ProcessState.ExitCode()
	if code != 3 || termed {
		t.Errorf("step exit %d (%v) %v after SIGINT (SIGTERM needed: %v); want 3 before the SIGTERM\n%s", code, err2, took, termed, logs.String())
	}
	r, err := result.Read(filepath.Join(out, "results", "long.json"))
	if err != nil {
		t.Fatalf("no partial result: %v\n%s", err, logs.String())
	}
	if r.Complete || !strings.Contains(r.IncompleteReason, "interrupted") {
		t.Errorf("result complete %v, reason %q; want it marked incomplete", r.Complete, r.IncompleteReason)
	}
	if b, _ := os.ReadFile(ghOutput); !strings.Contains(string(b), "verdict=run-failed") ||
		!strings.Contains(string(b), "output-dir="+out+"\n") || !strings.Contains(string(b), "artifact-name=perfgate-sig\n") {
		t.Errorf("GITHUB_OUTPUT %q lacks verdict=run-failed, output-dir=%s or artifact-name=perfgate-sig", b, out)
	}
	if !strings.Contains(logs.String(), "perfgate: start-up ") {
		t.Errorf("the step does not log its start-up time:\n%s", logs.String())
	}
	t.Logf("exit %d %v after SIGINT", code, took.Round(time.Millisecond))
}
