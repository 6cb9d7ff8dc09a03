package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/sim"
)

// TestMain doubles as a fake vLLM server process for the --server-cmd
// test: with CLI_TEST_SERVE_SIM=1 the test binary serves the simulator
// on a free loopback port, announces it the way vLLM's Uvicorn does, and
// runs until perfgate stops it.
func TestMain(m *testing.M) {
	if os.Getenv("CLI_TEST_PERFGATE_MAIN") == "1" {
		os.Exit(perfgateTestMain()) // see calibrate_test.go
	}
	if os.Getenv("CLI_TEST_SERVE_SIM") == "1" {
		os.Exit(gateServeSim())
	}
	// Tests run inside GitHub Actions must neither publish nor read the
	// runner's pull request: the commands see no GITHUB_* or ACTIONS_*
	// variable unless a test gives one (Streams.Environ). Done once here,
	// not per test, so the tests can run in parallel.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "ACTIONS_") {
			os.Unsetenv(k)
		}
	}
	// The runner's real GPU must not decide these tests' validity (a GPU
	// CI machine with another job on it); the health tests turn it on
	// with a fake nvidia-smi (health_e2e_test.go).
	if _, ok := os.LookupEnv(session.HealthEnv); !ok {
		os.Setenv(session.HealthEnv, "off")
	}
	os.Exit(m.Run())
}

func gateServeSim() int {
	cfg, err := sim.Preset("fast")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg.StepBase *= 5
	cfg.DecodeFixed *= 5
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// CLI_TEST_SIM_PRINT_ENV=1: log the environment and arguments at start,
	// as servers do when debugging (vLLM logs its args).
	if os.Getenv("CLI_TEST_SIM_PRINT_ENV") == "1" {
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		fmt.Printf("args: %s\n", strings.Join(os.Args[1:], " "))
	}
	var h http.Handler = sim.New(cfg)
	switch os.Getenv("CLI_TEST_SIM_LIKE") {
	case "ollama":
		// ollama: its own listen line (slog), no /health nor /version, its
		// version at /api/version.
		fmt.Printf("time=2026-01-01T00:00:00.000Z level=INFO source=routes.go:1718 msg=\"Listening on %s (version 0.17.4)\"\n", ln.Addr())
		h = likeOllama(h)
	case "never-ready":
		// Answers, but never healthy: /health 503 (a model that never loads).
		fmt.Printf("INFO:     Uvicorn running on http://%s (Press CTRL+C to quit)\n", ln.Addr())
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	default:
		fmt.Printf("INFO:     Uvicorn running on http://%s (Press CTRL+C to quit)\n", ln.Addr())
	}
	// CLI_TEST_SIM_DIE_AFTER=N: crash the way an engine does (a fatal
	// line, exit 1) on the N-th completion request.
	if n, err := strconv.Atoi(os.Getenv("CLI_TEST_SIM_DIE_AFTER")); err == nil {
		var seen atomic.Int64
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/completions" && seen.Add(1) >= int64(n) {
				fmt.Fprintln(os.Stderr, "RuntimeError: simulated engine crash (CUDA error: an illegal memory access)")
				os.Exit(1)
			}
			next.ServeHTTP(w, r)
		})
	}
	// CLI_TEST_SIM_LOG_HEADER=NAME: log the value of request header NAME
	// of every completion request, as a server debugging its gateway does.
	if name := os.Getenv("CLI_TEST_SIM_LOG_HEADER"); name != "" {
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/completions" {
				// Not "Name: value": redact.Text hides that shape by itself.
				fmt.Printf("routing the request by %s\n", r.Header.Get(name))
			}
			next.ServeHTTP(w, r)
		})
	}
	// CLI_TEST_SIM_API_KEY=k: guard /v1/ the way `vllm serve --api-key k`
	// does (/health and /metrics stay open).
	if key := os.Getenv("CLI_TEST_SIM_API_KEY"); key != "" {
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/v1/") && r.Header.Get("Authorization") != "Bearer "+key {
				http.Error(w, `{"error": "Unauthorized"}`, http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	http.Serve(ln, h)
	return 0
}

// likeOllama hides the simulator's vLLM endpoints that ollama lacks and
// adds the one by which it tells what it is.
func likeOllama(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health", "/version", "/reset_prefix_cache", "/metrics":
			http.NotFound(w, r)
		case "/api/version":
			fmt.Fprint(w, `{"version":"0.17.4"}`)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// TestGateLaunchesServerWithAPIKey: a server launched with an API key is
// probed with the key (vLLM guards /v1/models), and a wrong key fails the
// run at once instead of waiting out the ready timeout.
func TestGateLaunchesServerWithAPIKey(t *testing.T) {
	t.Parallel()
	serverCmd := runServerCmd(t) // skips under -short
	for _, tc := range []struct {
		key  string
		want ExitCode
	}{{"sk-launched", ExitInvalid}, {"sk-wrong", ExitRunFailed}} {
		env := testEnviron("CLI_TEST_SERVE_SIM=1", "CLI_TEST_SIM_API_KEY=sk-launched", "OPENAI_API_KEY=", "PERFGATE_API_KEY="+tc.key,
			"PERFGATE_SERVER_READY_TIMEOUT=1m") // bounds the test if failing fast broke
		out := t.TempDir()
		args := []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--trials", "2", "--max-trials", "2", "-o", out,
			"--baselines", filepath.Join(out, "none"), "--server-cmd", serverCmd}
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
		all := stdout.String() + stderr.String()
		if code != tc.want {
			t.Fatalf("key %s: exit %d, want %d\n%s", tc.key, code, tc.want, all)
		}
		if strings.Contains(all, tc.key) {
			t.Errorf("key %s: the key appeared in the output", tc.key)
		}
		if tc.want == ExitRunFailed && !strings.Contains(all, "API key") {
			t.Errorf("wrong key: the error does not say the key was refused:\n%s", all)
		}
	}
}

// TestGateLaunchesServer: with --server-cmd the gate starts the server,
// finds its URL in its output, runs against it, records its command line
// in the fingerprint, and stops it. Without baselines the verdict is
// "missing baseline" (exit 2) but the results are written.
//
// The dispatch-lag limit is lax (laxLag): what is tested is the launch,
// and on a loaded machine the client now and then wakes late for a send.
func TestGateLaunchesServer(t *testing.T) {
	serverCmd := runServerCmd(t) // skips under -short
	t.Parallel()
	env := testEnviron("CLI_TEST_SERVE_SIM=1")
	out := t.TempDir()
	args := append([]string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--trials", "2", "-o", out,
		"--baselines", filepath.Join(out, "none"), "--server-cmd", serverCmd}, laxLag...)
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
	if code != ExitInvalid || !strings.Contains(stdout.String(), "missing-baseline") {
		t.Fatalf("exit %d, want 2 (missing baseline)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	r, err := result.Read(filepath.Join(out, "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trials) != 2 || len(r.ValidTrials()) != 2 || !strings.Contains(r.Fingerprint["server.argv"], "-test.run") {
		t.Errorf("%d valid trials, fingerprint server.argv %q", len(r.ValidTrials()), r.Fingerprint["server.argv"])
	}

	// --allow-missing reaches the policy: the missing baseline is allowed,
	// though with nothing compared the verdict still fails closed.
	stdout.Reset()
	stderr.Reset()
	code = Main(context.Background(), append(args, "--allow-missing"), Streams{Out: &stdout, Err: &stderr, Environ: env})
	if code != ExitInvalid || !strings.Contains(stdout.String(), "(allowed by policy)") {
		t.Errorf("--allow-missing: exit %d, want 2 with the missing baseline allowed\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}
