package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// TestActionABMode runs the Action's step with mode: ab against two
// simulators already up (a-url, b-url): the step forwards the arm and
// block inputs to perfgate ab, which writes both arms' results with their
// design, and the step sets the verdict and the upload outputs.
func TestActionABMode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Action's shell step against two simulators")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, names := actionStep(t, "perfgate")
	var urls []string
	for range 2 {
		cfg, err := sim.Preset("fast")
		if err != nil {
			t.Fatal(err)
		}
		srv := sim.New(cfg)
		ts := httptest.NewServer(srv)
		t.Cleanup(func() { ts.Close(); srv.Close() })
		urls = append(urls, ts.URL)
	}
	dir := t.TempDir()
	wl := filepath.Join(dir, "short.yaml")
	if err := os.WriteFile(wl, []byte(`name: short
api: completions
dataset: {kind: random, input_tokens: 32, output_tokens: 8, seed: 1}
load: {requests: 8, concurrency: 4, rate: inf}
sampling: {temperature: 0, ignore_eos: true}
warmups: 0
trials: {min: 2, max: 2}
timeout: 30s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The step runs in dir, so perfgate ab reads this perfgate.yaml: the
	// trials' validity is not this test's subject, and a loaded host wakes
	// the client late now and then (a dispatch lag p99 of 14 ms against
	// the default 10 made one trial invalid and the verdict INVALID).
	if err := os.WriteFile(filepath.Join(dir, "perfgate.yaml"), []byte("limits:\n  max_dispatch_lag_ms: 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scriptFile := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ghOutput, out := filepath.Join(dir, "github_output"), filepath.Join(dir, "out")
	set := map[string]string{
		"PERFGATE": os.Args[0], "IN_MODE": "ab", "IN_PROFILE": "abtest", "IN_WORKLOADS": wl, "IN_OUTPUT": out,
		"IN_A_URL": urls[0], "IN_B_URL": urls[1], "IN_BLOCKS": "4", "IN_BLOCK_TRIALS": "1", "IN_COMMENT": "never",
		"IN_UPLOAD_ARTIFACT": "true", "ACTION_T0": "0", "ACTION_BIN_SOURCE": "none", "ACTION_CACHE_HIT": "true",
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_OUTPUT=" + ghOutput, "GITHUB_PATH=" + filepath.Join(dir, "github_path"),
		"PERFGATE_TEST_AS_MAIN=1"}
	for _, n := range names {
		env = append(env, n+"="+set[n]) // every other input left empty, as the runner passes it
	}
	step := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", scriptFile)
	step.Env, step.Dir = env, dir
	logs, err := step.CombinedOutput()
	code := step.ProcessState.ExitCode()
	if code != 0 && code != 1 && code != 4 {
		t.Fatalf("step exit %d (%v), want a verdict\n%s", code, err, logs)
	}
	for _, arm := range []string{"a", "b"} {
		r, err := result.Read(filepath.Join(out, arm, "short.json"))
		if err != nil {
			t.Fatalf("%v\n%s", err, logs)
		}
		if r.Arm != arm || r.AB == nil || r.AB.Order != "ABBA" || len(r.ValidTrials()) != 2 {
			t.Errorf("arm %s: arm %q, ab %+v, %d valid trials", arm, r.Arm, r.AB, len(r.ValidTrials()))
		}
	}
	b, _ := os.ReadFile(ghOutput)
	for _, want := range []string{"verdict", "output-dir=" + out + "\n", "artifact-name=perfgate-abtest\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, b)
		}
	}
	if !strings.Contains(string(logs), "starting perfgate ab") {
		t.Errorf("the step did not start perfgate ab:\n%s", logs)
	}
}
