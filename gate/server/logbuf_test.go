package server

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/redact"
)

func TestAnnouncedURL(t *testing.T) {
	tests := []struct{ line, want string }{
		{"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)", "http://127.0.0.1:8000"},
		{"127.0.0.1:41234", "http://127.0.0.1:41234"},
		{"listening on http://localhost:9000/", "http://localhost:9000"},
		{"serving on [::]:8080", "http://[::1]:8080"},
		{"https://10.0.0.5:443 ready", "https://10.0.0.5:443"},
		{"INFO 03-15 10:15:00 loading weights", ""}, // a time, not an address
		{"version 1.2.3.4:5", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := announcedURL(tt.line); got != tt.want {
			t.Errorf("announcedURL(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestLogBuffer(t *testing.T) {
	var file bytes.Buffer
	b := newLogBuffer(&file, 64, redact.NewScrubber("sk-secret"))
	b.Write([]byte("loading\nkey sk-secret in use\nUvicorn running on http://0.0.0.0:"))
	select {
	case u := <-b.addr:
		t.Fatalf("address found in a partial line: %s", u)
	default:
	}
	b.Write([]byte("8000 (Press CTRL+C)\n"))
	if u := <-b.addr; u != "http://127.0.0.1:8000" {
		t.Errorf("addr = %s", u)
	}
	for i := 0; i < 20; i++ {
		b.Write([]byte("line " + strings.Repeat("x", i) + "\n"))
	}
	tail := b.Tail(2)
	if tail != "line "+strings.Repeat("x", 18)+"\nline "+strings.Repeat("x", 19) {
		t.Errorf("Tail(2) = %q", tail)
	}
	if strings.Contains(file.String(), "sk-secret") || !strings.HasPrefix(file.String(), "loading\nkey "+redact.Placeholder+" in use\nUvicorn running on http://0.0.0.0:8000") {
		t.Errorf("the log file is not the scrubbed lines: %q", file.String()[:60])
	}
	b2 := newLogBuffer(nil, 1024, redact.NewScrubber("sk-secret"))
	b2.Write([]byte("key sk-sec"))
	b2.Write([]byte("ret in use\n"))
	if got := b2.Tail(5); got != "key "+redact.Placeholder+" in use" {
		t.Errorf("Tail did not redact: %q", got)
	}
	// The file gets whole lines, so a secret split between two writes is
	// scrubbed in it too; the unterminated end arrives at flush.
	var f3 bytes.Buffer
	b3 := newLogBuffer(&f3, 1024, redact.NewScrubber("sk-secret"))
	b3.Write([]byte("key sk-sec"))
	b3.Write([]byte("ret in use\nlast sk-se"))
	b3.Write([]byte("cret"))
	if got := f3.String(); got != "key "+redact.Placeholder+" in use\n" {
		t.Errorf("file before flush = %q", got)
	}
	b3.flush()
	if got := f3.String(); got != "key "+redact.Placeholder+" in use\nlast "+redact.Placeholder {
		t.Errorf("file after flush = %q", got)
	}
}

// TestLogTailScrubsTheEnvironment: a server that prints its environment
// and arguments (vLLM logs its args at start) leaks none of the secrets
// perfgate knows, from its own environment (GITHUB_TOKEN in CI: withheld
// from the server, but a server may find it elsewhere, say in
// /proc/<ppid>/environ), server.env or the command line, into the tail that
// results and stderr record, while settings that only look like secrets
// stay readable.
func TestLogTailScrubsTheEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	const (
		ghToken = "plain-gh-token-value" // no token shape: only the Scrubber knows it
		runtime = "runtime-token-value"
		hfToken = "hf-token-from-server-env"
		auth    = "hunter2-auth"
	)
	p, err := Start(Config{
		Command: []string{"sh", "-c", `env; echo "args: $*"; echo "found plain-gh-token-value"; exit 3`, "sh", "--time-to-first-token", "50ms", "--auth", auth},
		BaseEnv: []string{"PATH=/usr/bin:/bin", "GITHUB_TOKEN=" + ghToken, "ACTIONS_RUNTIME_TOKEN=" + runtime, "VLLM_SLEEP=50ms"},
		Env:     map[string]string{"HF_TOKEN": hfToken},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	err = p.Wait(context.Background())
	var exit *ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("Wait = %v, want an ExitError", err)
	}
	for _, tail := range []string{exit.Tail, p.Tail(100)} {
		for _, secret := range []string{ghToken, runtime, hfToken, auth} {
			if strings.Contains(tail, secret) {
				t.Errorf("%s in the tail:\n%s", secret, tail)
			}
		}
		for _, keep := range []string{"--time-to-first-token 50ms", "VLLM_SLEEP=50ms", "HF_TOKEN=" + redact.Placeholder, "found " + redact.Placeholder} {
			if !strings.Contains(tail, keep) {
				t.Errorf("%q missing from the tail:\n%s", keep, tail)
			}
		}
	}
}
