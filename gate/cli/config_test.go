package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(file, []byte("profile: sim\nserver:\n  url: http://u:hunter2@127.0.0.1:8000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"config", "--config", file}, Streams{Out: &out, Err: &errb, Environ: testEnviron("PERFGATE_GITHUB_TOKEN=ghs_secret_value")})
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{"profile: sim # " + file + ":1", "url: http://[redacted]@127.0.0.1:8000", "token: '[redacted]' # env PERFGATE_GITHUB_TOKEN"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, secret := range []string{"hunter2", "ghs_secret_value"} {
		if strings.Contains(got+errb.String(), secret) {
			t.Errorf("output leaks %q", secret)
		}
	}
}

func TestConfigCommandInvalid(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "perfgate.yaml")
	if err := os.WriteFile(file, []byte("profile: sim\npolicy:\n  alpah: 0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"config", "--config", file}, Streams{Out: &out, Err: &errb})
	if code != ExitInvalid || !strings.Contains(errb.String(), file+":3: policy.alpah: unknown key") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestConfigCommandGet(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"config", "--get", "profile"}, Streams{Out: &out, Err: &errb, Environ: testEnviron("PERFGATE_PROFILE=from-env")}); code != ExitPass || out.String() != "from-env\n" {
		t.Errorf("config --get profile: exit %d, out %q, err %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := Main(context.Background(), []string{"config", "--get", "polcy.alpha"}, Streams{Out: &out, Err: &errb}); code != ExitInvalid || !strings.Contains(errb.String(), `did you mean "policy.alpha"`) {
		t.Errorf("config --get typo: exit %d, err %q", code, errb.String())
	}
}
