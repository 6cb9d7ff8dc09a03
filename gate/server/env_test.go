package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCICredential(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"GITHUB_TOKEN", true},
		{"GH_TOKEN", true},
		{"github_token", true},
		{"PERFGATE_GITHUB_TOKEN", true},
		{"INPUT_GITHUB-TOKEN", true},
		{"ACTIONS_RUNTIME_TOKEN", true},
		{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", true},
		{"ACTIONS_ID_TOKEN_REQUEST_URL", true},
		{"ACTIONS_CACHE_URL", true},
		// The server's own settings and credentials reach it.
		{"HF_TOKEN", false},
		{"VLLM_API_KEY", false},
		{"CUDA_VISIBLE_DEVICES", false},
		{"GITHUB_SHA", false},
		{"GITHUB_WORKSPACE", false},
		{"PATH", false},
	} {
		if got := CICredential(tc.name); got != tc.want {
			t.Errorf("CICredential(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestServerEnvWithholdsCICredentials: a launched server that prints its
// environment shows none of the CI credentials perfgate inherited, and
// keeps everything else; server.env can still set one explicitly. The
// server's own output is read from server.log: the tail perfgate records
// is scrubbed of every secret value it knows (TestLogTailScrubsTheEnvironment).
func TestServerEnvWithholdsCICredentials(t *testing.T) {
	t.Parallel()
	cfg := helperConfig(t, "env")
	cfg.BaseEnv = append(cfg.BaseEnv,
		"GITHUB_TOKEN=ghs_pullrequestwritetoken", "GH_TOKEN=ghp_othertoken",
		"ACTIONS_RUNTIME_TOKEN=runtimetokenvalue", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidctokenvalue",
		"HF_TOKEN=hf_servers_own", "GITHUB_SHA=abc123")
	cfg.Env["GH_TOKEN"] = "explicit-choice"
	cfg.Log = filepath.Join(t.TempDir(), "server.log")
	p := start(t, cfg)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the env helper did not exit")
	}
	data, err := os.ReadFile(cfg.Log)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		lines = append(lines, reverse(l))
	}
	tail := strings.Join(lines, "\n")
	for _, secret := range []string{"ghs_pullrequestwritetoken", "ghp_othertoken", "runtimetokenvalue", "oidctokenvalue"} {
		if strings.Contains(tail, secret) {
			t.Errorf("the server inherited %s:\n%s", secret, tail)
		}
	}
	for _, kept := range []string{"HF_TOKEN=hf_servers_own", "GITHUB_SHA=abc123", "GH_TOKEN=explicit-choice", "PATH="} {
		if !strings.Contains(tail, kept) {
			t.Errorf("the server lacks %s:\n%s", kept, tail)
		}
	}
}
