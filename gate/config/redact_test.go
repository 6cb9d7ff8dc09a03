package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/redact"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestPrintable(t *testing.T) {
	Redacted := redact.Placeholder
	c := Default()
	c.GitHub.Token = "ghp_supersecret"
	c.Server.URL = "https://admin:pw123@host:8000/?key=abc"
	c.Server.Env = []string{"HF_TOKEN=hf_x1", "CUDA_VISIBLE_DEVICES=0", "OPENAI_API_KEY=sk-1", "garbage"}
	c.Server.Command = Argv{"vllm", "serve", "m", "--api-key", "sk-2", "--hf-token=hf_x2", "--port", "8000", "--proxy", "http://u:pw9@proxy"}
	r := c.Printable()
	want := Argv{"vllm", "serve", "m", "--api-key", Redacted, "--hf-token=" + Redacted, "--port", "8000", "--proxy", "http://" + Redacted + "@proxy"}
	if !reflect.DeepEqual(r.Server.Command, want) {
		t.Errorf("command = %q, want %q", r.Server.Command, want)
	}
	wantEnv := []string{"HF_TOKEN=" + Redacted, "CUDA_VISIBLE_DEVICES=0", "OPENAI_API_KEY=" + Redacted, Redacted}
	if !reflect.DeepEqual(r.Server.Env, wantEnv) {
		t.Errorf("env = %q, want %q", r.Server.Env, wantEnv)
	}
	if r.GitHub.Token != Redacted || r.Server.URL != "https://"+Redacted+"@host:8000/?key="+Redacted {
		t.Errorf("token %q url %q", r.GitHub.Token, r.Server.URL)
	}
	if c.GitHub.Token != "ghp_supersecret" || c.Server.Env[0] != "HF_TOKEN=hf_x1" {
		t.Error("Printable modified its receiver")
	}
}

// TestPrintableKeepsLookAlikes: tuning knobs and latency settings whose
// names contain "token" are what `perfgate config` exists to show; they
// were printed as secrets once.
func TestPrintableKeepsLookAlikes(t *testing.T) {
	c := Default()
	c.Server.Command = Argv{"vllm", "serve", "m", "--max-num-batched-tokens", "8192", "--time-to-first-token", "50ms",
		"--inter-token-latency=10ms", "--tokenizer", "t", "--auth", "alice:pw", "-k", "sk-proj-Abc123Def456Ghi789Jkl0"}
	c.Server.Env = []string{"VLLM_MAX_NUM_BATCHED_TOKENS=8192", "VLLM_EXTRA=--api-key hunter22"}
	r := c.Printable()
	want := Argv{"vllm", "serve", "m", "--max-num-batched-tokens", "8192", "--time-to-first-token", "50ms",
		"--inter-token-latency=10ms", "--tokenizer", "t", "--auth", redact.Placeholder, "-k", redact.Placeholder}
	if !reflect.DeepEqual(r.Server.Command, want) {
		t.Errorf("command = %q\nwant %q", r.Server.Command, want)
	}
	wantEnv := []string{"VLLM_MAX_NUM_BATCHED_TOKENS=8192", "VLLM_EXTRA=--api-key " + redact.Placeholder}
	if !reflect.DeepEqual(r.Server.Env, wantEnv) {
		t.Errorf("env = %q, want %q", r.Server.Env, wantEnv)
	}
}

func TestPrintGolden(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "perfgate.yaml", fullFile)
	l, err := Load(Options{File: file, Environ: []string{"PERFGATE_GITHUB_TOKEN=ghs_topsecret", "PERFGATE_TYPO=1",
		"PERFGATE_SERVER_COMMAND=vllm serve m --api-key sk-live-123"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Print(&buf, l); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(buf.String(), dir, "DIR")
	for _, secret := range []string{"ghs_topsecret", "hf_secret", "sk-live-123"} {
		if strings.Contains(got, secret) {
			t.Errorf("output leaks %q", secret)
		}
	}
	golden := filepath.Join("testdata", "print.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Print output differs from %s (run with -update):\n%s", golden, got)
	}
}

func TestValue(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "perfgate.yaml", fullFile)
	l, err := Load(Options{File: file, Environ: []string{"PERFGATE_GITHUB_TOKEN=ghs_x"}})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"profile":              "h100-llama",
		"baselines":            filepath.Join(dir, "base"),
		"trials.budget":        "45m0s",
		"policy.alpha":         "0.01",
		"github.comment":       "never",
		"github.token":         redact.Placeholder,
		"server.env":           "CUDA_VISIBLE_DEVICES=0\nHF_TOKEN=" + redact.Placeholder,
		"policy.tolerances":    "tpot_ms.p50=0.03\nttft_ms.p99=0.08",
		"server.ready_timeout": "1m30s",
	} {
		got, err := Value(l, key)
		if err != nil || got != want {
			t.Errorf("Value(%s) = %q, %v; want %q", key, got, err, want)
		}
	}
	for _, bad := range []string{"server", "profil", "nope"} {
		if _, err := Value(l, bad); err == nil {
			t.Errorf("Value(%q) succeeded", bad)
		}
	}
}
