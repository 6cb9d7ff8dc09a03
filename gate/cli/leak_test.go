package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestLaunchedServerLeaksNoSecret (issue 14, defects 7 and 8): a launched
// server that logs its environment and arguments, then crashes, gets its
// log tail into the result file and onto stderr. None of the secrets
// perfgate knows may be there (its own GITHUB_TOKEN and
// ACTIONS_RUNTIME_TOKEN, a server.env HF_TOKEN, a --auth value), while the
// settings that only look like secrets (--time-to-first-token 50ms) stay
// readable in the startup line, the fingerprint and the tail.
func TestLaunchedServerLeaksNoSecret(t *testing.T) {
	t.Parallel()
	serverCmd := runServerCmd(t) + " --time-to-first-token 50ms --auth hunter2-auth-value"
	const (
		ghToken = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
		runtime = "actions-runtime-value"
		hfToken = "hf-token-passed-on"
	)
	// The launched server inherits the command's environment, tokens
	// included, and prints it (CLI_TEST_SIM_PRINT_ENV).
	env := testEnviron("GITHUB_TOKEN="+ghToken, "ACTIONS_RUNTIME_TOKEN="+runtime)
	dir := t.TempDir()
	code, out, errs := runMainIn(context.Background(), env, append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "-o", dir, "--trials", "3", "--grace", "2s",
		"--server-cmd", serverCmd, "--server-env", "CLI_TEST_SERVE_SIM=1", "--server-env", "CLI_TEST_SIM_DIE_AFTER=25",
		"--server-env", "CLI_TEST_SIM_PRINT_ENV=1", "--server-env", "HF_TOKEN="+hfToken)...)
	if code != ExitRunFailed {
		t.Fatalf("exit %v, want 3 (the server crashed)\nstderr:\n%s", code, errs)
	}
	r, err := result.Read(filepath.Join(dir, "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Server.LogTail, "simulated engine crash") {
		t.Fatalf("log tail %q lacks the crash", r.Server.LogTail)
	}
	recorded := out + errs
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			recorded += string(data)
		}
	}
	for _, secret := range []string{ghToken, runtime, hfToken, "hunter2-auth-value"} {
		if strings.Contains(recorded, secret) {
			t.Errorf("%s was recorded (stdout, stderr or %s)", secret, dir)
		}
	}
	if !strings.Contains(errs, "starting the server: ") || !strings.Contains(errs, "--time-to-first-token 50ms --auth '[redacted]'") {
		t.Errorf("startup line hides the wrong things:\n%s", errs)
	}
	if !strings.Contains(r.Fingerprint["server.argv"], "--time-to-first-token 50ms") {
		t.Errorf("fingerprint server.argv %q lost the latency setting", r.Fingerprint["server.argv"])
	}
}

// TestConfigShowsLookAlikes (issue 14, defect 8): `perfgate config` hides
// the secrets of the server's command line and environment, and shows the
// settings whose names only contain "token", which it once hid.
func TestConfigShowsLookAlikes(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "perfgate.yaml")
	yaml := "server:\n  command: [vllm, serve, m, --max-num-batched-tokens, \"8192\", --api-key, sk-live-1234, -k, sk-proj-Abc123Def456Ghi789Jkl0]\n" +
		"  env: [VLLM_EXTRA=--api-key hunter22, VLLM_MAX_NUM_BATCHED_TOKENS=8192]\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"server.command": "vllm\nserve\nm\n--max-num-batched-tokens\n8192\n--api-key\n[redacted]\n-k\n[redacted]\n",
		"server.env":     "VLLM_EXTRA=--api-key [redacted]\nVLLM_MAX_NUM_BATCHED_TOKENS=8192\n",
	} {
		var out, errs bytes.Buffer
		code := Main(context.Background(), []string{"config", "--config", file, "--get", key}, Streams{Out: &out, Err: &errs})
		if code != ExitPass || out.String() != want {
			t.Errorf("config --get %s: exit %v\n got %q\nwant %q\nstderr %s", key, code, out.String(), want, errs.String())
		}
	}
}

// TestLaunchedServerLeaksNoHeaderSecret: a workload header read from the
// environment under an innocent name (MY_HEADER_VALUE, which
// redact.ForProcess does not take for a secret) reaches a launched server
// that logs it and then crashes, under run and gate. The value is in the
// operator's own server.log (so the header was sent), and in no output
// file, stdout or stderr: the log tail, the crash message, the reports and
// the fingerprint all know it.
func TestLaunchedServerLeaksNoHeaderSecret(t *testing.T) {
	t.Parallel()
	serverCmd := runServerCmd(t) // skips under -short
	const value = "hdr-value-7d3e91c0b2"
	env := []string{"MY_HEADER_VALUE=" + value, "CLI_TEST_SERVE_SIM=1", "CLI_TEST_SIM_DIE_AFTER=25", "CLI_TEST_SIM_LOG_HEADER=X-Api-Token"}
	wl := filepath.Join(t.TempDir(), "hdr.yaml")
	yaml := "name: hdr\napi: completions\ndataset: {kind: random, input_tokens: 32, output_tokens: 8, seed: 11}\n" +
		"load: {requests: 16, concurrency: 4, rate: inf}\nsampling: {temperature: 0, ignore_eos: true}\n" +
		"warmups: 1\ntrials: {min: 3, max: 3}\ntimeout: 30s\nheaders:\n  X-Api-Token: {env: MY_HEADER_VALUE}\n"
	if err := os.WriteFile(wl, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"run", "gate"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			env := env
			dir, logDir := t.TempDir(), t.TempDir()
			serverLog := filepath.Join(logDir, "server.log")
			args := append([]string{"-w", wl, "-o", dir, "--trials", "3", "--grace", "2s", "--server-log", serverLog}, runLax...)
			if command == "gate" {
				env = append(env, "PERFGATE_SERVER_LOG="+serverLog) // gate has no flag for it
				args = []string{"--workloads", wl, "-o", dir, "--trials", "3", "--max-trials", "3", "--baselines", filepath.Join(dir, "none")}
			}
			args = append(args, "--server-cmd", serverCmd)
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), append([]string{command}, args...), Streams{Out: &stdout, Err: &stderr, Environ: testEnviron(env...)})
			if code != ExitRunFailed {
				t.Fatalf("exit %v, want 3 (the server crashed)\nstderr:\n%s", code, stderr.String())
			}
			// The server logged the value it received, and only a value
			// the scrubber knows becomes [redacted]: the header arrived,
			// and the log file (which may sit in the uploaded output
			// directory) keeps none of it.
			raw, err := os.ReadFile(serverLog)
			if err != nil || !strings.Contains(string(raw), "routing the request by [redacted]") {
				t.Fatalf("the server log lacks the scrubbed header line (err %v):\n%s", err, raw)
			}
			recorded := string(raw) + stdout.String() + stderr.String()
			if !strings.Contains(recorded, "routing the request by [redacted]") {
				t.Errorf("the log tail on stderr lacks the scrubbed header line:\n%s", recorded)
			}
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					data, _ := os.ReadFile(path)
					recorded += string(data)
				}
				return nil
			})
			if strings.Contains(recorded, value) {
				t.Errorf("the header value was recorded (stdout, stderr or %s):\n%s", dir, recorded)
			}
		})
	}
}
