package session

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestMain lets this test binary be the launched server: with
// SESSION_TEST_SERVE=1 it serves the simulator on a loopback port,
// announcing it as vLLM's Uvicorn does, and with SESSION_TEST_DIE_AFTER=N
// crashes the way an engine does (a fatal line, exit 1) on the N-th
// completion request.
func TestMain(m *testing.M) {
	if os.Getenv("SESSION_TEST_SERVE") == "1" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

func serve() int {
	cfg, err := sim.Preset("fast")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("INFO:     Uvicorn running on http://%s (Press CTRL+C to quit)\n", ln.Addr())
	var h http.Handler = sim.New(cfg)
	if n, err := strconv.Atoi(os.Getenv("SESSION_TEST_DIE_AFTER")); err == nil {
		var seen atomic.Int64
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/completions" && seen.Add(1) >= int64(n) {
				fmt.Fprintln(os.Stderr, "RuntimeError: simulated engine crash")
				os.Exit(1)
			}
			next.ServeHTTP(w, r)
		})
	}
	_ = http.Serve(ln, h)
	return 0
}

func manifests(t *testing.T) []*workload.Manifest {
	t.Helper()
	ms, err := workload.LoadPaths([]string{"testdata/small.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// env is a process environment of the test's own (health sampling off:
// the machine's GPU must not decide these tests).
func env(extra ...string) ([]string, func(string) (string, bool)) {
	environ := append([]string{HealthEnv + "=off"}, extra...)
	return environ, func(name string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
}

// attachedSim is a fast-preset simulator already up, for sessions that
// attach by URL; it closes with the test.
func attachedSim(t *testing.T) *httptest.Server {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.New(cfg))
	t.Cleanup(srv.Close)
	return srv
}

// TestAttach: a session against a server already up runs a cell to the
// end: a complete result with its trials, the /metrics deltas of the
// scrape hook, and the environment fingerprint.
func TestAttach(t *testing.T) {
	t.Parallel()
	srv := attachedSim(t)
	environ, lookup := env()
	var stderr bytes.Buffer
	var res *result.Result
	err := Run(context.Background(), Options{URL: srv.URL, ReadyTimeout: 10 * time.Second, LookupEnv: lookup, Environ: environ, Err: &stderr},
		func(ctx context.Context, s *Session) error {
			if s.URL != srv.URL || s.Runner == nil {
				t.Errorf("session URL %q, runner %v", s.URL, s.Runner)
			}
			var err error
			res, err = s.RunCell(ctx, manifests(t)[0], 2, nil)
			return err
		})
	if err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, stderr.String())
	}
	if !res.Complete || len(res.Trials) != 2 || res.StartedAt.IsZero() || res.FinishedAt.Before(res.StartedAt) {
		t.Fatalf("result: complete %v, %d trials, %v..%v", res.Complete, len(res.Trials), res.StartedAt, res.FinishedAt)
	}
	if len(res.Fingerprint) == 0 {
		t.Error("result has no fingerprint")
	}
	if len(res.Trials[0].Server) == 0 {
		t.Errorf("trial has no /metrics deltas: the scrape hook did not run")
	}
}

// TestAttachBadURL: a URL the load generator refuses is invalid input
// (InvalidError, setting "url"), not a server failure.
func TestAttachBadURL(t *testing.T) {
	t.Parallel()
	err := Run(context.Background(), Options{URL: "ftp://127.0.0.1:1"}, func(context.Context, *Session) error {
		t.Error("fn called for a bad URL")
		return nil
	})
	var ie *InvalidError
	if !errorsAs(err, &ie) || ie.Setting != "url" {
		t.Fatalf("err = %v, want an InvalidError for the url", err)
	}
	if _, ok := Failure(err); ok {
		t.Error("a bad URL reads as a server failure")
	}
}

// TestNoServer: without a URL or command a session runs kind: command
// cells only; a serving cell fails naming what it lacks.
func TestNoServer(t *testing.T) {
	t.Parallel()
	err := Run(context.Background(), Options{}, func(ctx context.Context, s *Session) error {
		if s.Runner != nil {
			t.Error("a session without a server has a runner")
		}
		res, err := s.RunCell(ctx, manifests(t)[0], 1, nil)
		if err == nil || !strings.Contains(err.Error(), "needs a server") || res.Complete {
			t.Errorf("serving cell without a server: err %v, result %+v", err, res)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLaunchDiesBeforeReady: a server that exits before it is ready is a
// failure before ready, with the end of its log, shown once on stderr.
func TestLaunchDiesBeforeReady(t *testing.T) {
	t.Parallel()
	environ, lookup := env()
	var stderr bytes.Buffer
	called := false
	err := Run(context.Background(), Options{
		Command: []string{"sh", "-c", `echo "$MSG"; exit 3`}, Env: []string{"MSG=CUDA out of memory"}, URL: "http://127.0.0.1:1",
		ReadyTimeout: 30 * time.Second, LookupEnv: lookup, Environ: environ, Err: &stderr,
	}, func(context.Context, *Session) error { called = true; return nil })
	if called {
		t.Error("fn called for a server that never became ready")
	}
	f, ok := Failure(err)
	if !ok || !f.BeforeReady || !f.Exited || f.ExitCode != 3 || !strings.Contains(f.Tail, "CUDA out of memory") {
		t.Fatalf("failure %+v (ok %v) of %v", f, ok, err)
	}
	if n := strings.Count(stderr.String(), "CUDA out of memory"); n != 1 {
		t.Errorf("stderr shows the log tail %d times, want once:\n%s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "starting the server: sh -c") {
		t.Errorf("stderr does not say what it starts:\n%s", stderr.String())
	}
}

// TestLaunchBadEnv: a server environment entry that is not NAME=value is
// invalid input, found before anything starts.
func TestLaunchBadEnv(t *testing.T) {
	t.Parallel()
	err := Run(context.Background(), Options{Command: []string{"true"}, Env: []string{"NOEQUALS"}}, func(context.Context, *Session) error {
		t.Error("fn called")
		return nil
	})
	var ie *InvalidError
	if !errorsAs(err, &ie) || ie.Setting != "env" {
		t.Fatalf("err = %v, want an InvalidError for the env", err)
	}
}

// TestLaunchDiesDuringRun: a launched server that crashes in the second
// cell fails the session; the session marks the cell it cut short
// (incomplete, the failure as reason, the log tail), leaves the first
// cell's result complete without the tail, and shows the log once.
func TestLaunchDiesDuringRun(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	environ, lookup := env()
	var stderr bytes.Buffer
	var first, second *result.Result
	m := manifests(t)[0]
	err = Run(context.Background(), Options{
		Command: []string{exe, "-test.run=^$"}, Env: []string{"SESSION_TEST_SERVE=1", "SESSION_TEST_DIE_AFTER=12"},
		ReadyTimeout: time.Minute, LookupEnv: lookup, Environ: environ, Err: &stderr,
	}, func(ctx context.Context, s *Session) error {
		var err error
		if first, err = s.RunCell(ctx, m, 1, nil); err != nil { // 8 requests
			return err
		}
		second, err = s.RunCell(ctx, m, 2, nil) // dies at the 12th
		return err
	})
	f, ok := Failure(err)
	if !ok || f.BeforeReady || !f.Exited {
		t.Fatalf("failure %+v (ok %v) of %v\nstderr:\n%s", f, ok, err, stderr.String())
	}
	if !first.Complete || first.Server.LogTail != "" {
		t.Errorf("first cell: complete %v, tail %q; want complete without the tail", first.Complete, first.Server.LogTail)
	}
	if second.Complete || !strings.HasPrefix(second.IncompleteReason, f.Summary) || !strings.Contains(second.Server.LogTail, "simulated engine crash") {
		t.Errorf("second cell: complete %v, reason %q, tail %q", second.Complete, second.IncompleteReason, second.Server.LogTail)
	}
	if n := strings.Count(stderr.String(), "simulated engine crash"); n != 1 {
		t.Errorf("stderr shows the log tail %d times, want once:\n%s", n, stderr.String())
	}
}

// TestMarkFailed: the failure replaces the reason of a result it cut
// short, keeps a finished one's, and marking twice changes nothing.
func TestMarkFailed(t *testing.T) {
	t.Parallel()
	f := server.Failure{Summary: "the server exited with status 1 during the run", Tail: "boom"}
	tests := []struct {
		name       string
		r          result.Result
		wantReason string
	}{
		{"cut short", result.Result{IncompleteReason: "run interrupted"}, f.Summary + " (run interrupted)"},
		{"finished", result.Result{Complete: true}, ""},
	}
	for _, tt := range tests {
		r := tt.r
		MarkFailed(&r, f)
		MarkFailed(&r, f)
		if r.IncompleteReason != tt.wantReason || r.Server.LogTail != "boom" {
			t.Errorf("%s: reason %q, tail %q; want %q, boom", tt.name, r.IncompleteReason, r.Server.LogTail, tt.wantReason)
		}
	}
	MarkFailed(nil, f) // no result: nothing to mark
}

// TestInterrupted: only an interruption of the readiness wait is one.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	if _, ok := Interrupted(fmt.Errorf("x: %w", context.Canceled)); ok {
		t.Error("a cancelled context outside the readiness wait reads as interrupted before ready")
	}
	err := &server.LaunchError{Err: fmt.Errorf("waiting: %w", readyInterrupted()), Tail: "loading"}
	f, ok := Interrupted(err)
	if !ok || !f.BeforeReady || f.Tail != "loading" {
		t.Errorf("Interrupted = %+v, %v", f, ok)
	}
	if _, ok := Failure(err); ok {
		t.Error("an interruption reads as a server failure")
	}
}

// TestEngineAndGPUs: the configured engine wins, else the launch
// command's; the configured GPU count wins, else the command's.
func TestEngineAndGPUs(t *testing.T) {
	t.Parallel()
	argv := []string{"vllm", "serve", "m", "--tensor-parallel-size", "2"}
	if n, err := Engine("", argv); err != nil || n != "vllm" {
		t.Errorf("Engine(auto, vllm argv) = %q, %v", n, err)
	}
	if n, err := Engine("sglang", argv); err != nil || n != "sglang" {
		t.Errorf("Engine(sglang, vllm argv) = %q, %v", n, err)
	}
	if _, err := Engine("nonsense", nil); err == nil {
		t.Error("Engine accepted an unknown engine")
	}
	if g := GPUs(0, argv); g != 2 {
		t.Errorf("GPUs(0, tp 2) = %d", g)
	}
	if g := GPUs(4, argv); g != 4 {
		t.Errorf("GPUs(4, tp 2) = %d", g)
	}
	ms := []*workload.Manifest{{GPUs: 0}, {GPUs: 8}}
	DefaultGPUs(ms, 2)
	if ms[0].GPUs != 2 || ms[1].GPUs != 8 {
		t.Errorf("DefaultGPUs: %d, %d", ms[0].GPUs, ms[1].GPUs)
	}
}
