package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestRedacted(t *testing.T) {
	c := Default()
	c.GitHub.Token = "ghp_supersecret"
	c.Server.URL = "https://admin:pw123@host:8000/?key=abc"
	c.Server.Env = []string{"HF_TOKEN=hf_x1", "CUDA_VISIBLE_DEVICES=0", "OPENAI_API_KEY=sk-1", "garbage"}
	c.Server.Command = Argv{"vllm", "serve", "m", "--api-key", "sk-2", "--hf-token=hf_x2", "--port", "8000", "--proxy", "http://u:pw9@proxy"}
	r := c.Redacted()
	want := Argv{"vllm", "serve", "m", "--api-key", Redacted, "--hf-token=" + Redacted, "--port", "8000", "--proxy", "http://proxy"}
	if !reflect.DeepEqual(r.Server.Command, want) {
		t.Errorf("command = %q, want %q", r.Server.Command, want)
	}
	wantEnv := []string{"HF_TOKEN=" + Redacted, "CUDA_VISIBLE_DEVICES=0", "OPENAI_API_KEY=" + Redacted, Redacted}
	if !reflect.DeepEqual(r.Server.Env, wantEnv) {
		t.Errorf("env = %q, want %q", r.Server.Env, wantEnv)
	}
	if r.GitHub.Token != Redacted || r.Server.URL != "https://host:8000/?redacted" {
		t.Errorf("token %q url %q", r.GitHub.Token, r.Server.URL)
	}
	if c.GitHub.Token != "ghp_supersecret" || c.Server.Env[0] != "HF_TOKEN=hf_x1" {
		t.Error("Redacted modified its receiver")
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
		"github.comment":       "false",
		"github.token":         Redacted,
		"server.env":           "CUDA_VISIBLE_DEVICES=0\nHF_TOKEN=" + Redacted,
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
