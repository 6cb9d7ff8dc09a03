package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// serveTestServer is the simulator behind a front that demands an API key
// on /v1/, delays each completion's response by delay (a slow network the
// server's own TTFT does not see), and answers /metrics with 404 when
// noMetrics is set.
type serveTestServer struct {
	url        string
	authorized atomic.Int64
	rejected   atomic.Int64
}

func newServeTestServer(t *testing.T, key string, delay time.Duration, noMetrics bool) *serveTestServer {
	t.Helper()
	cfg := gateSimConfig(t)
	srv := sim.New(cfg)
	st := &serveTestServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/metrics" && noMetrics:
			http.NotFound(w, r)
			return
		case strings.HasPrefix(r.URL.Path, "/v1/"):
			if r.Header.Get("Authorization") != "Bearer "+key {
				st.rejected.Add(1)
				http.Error(w, `{"error": "unauthorized"}`, http.StatusUnauthorized)
				return
			}
			st.authorized.Add(1)
			if r.URL.Path == "/v1/completions" {
				time.Sleep(delay)
			}
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); srv.Close() })
	st.url = ts.URL
	return st
}

// serveGateIn runs perfgate gate in the environment env (testEnviron)
// with 2 trials of decode-a and no baselines (exit 2, results written)
// and returns the result.
func serveGateIn(t *testing.T, env []string, url string, extra ...string) (*result.Result, string) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--trials", "2", "--max-trials", "2",
		"-o", out, "--baselines", filepath.Join(out, "none"), "--url", url}, laxLag...) // callers count valid trials
	args = append(args, extra...)
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
	if code != ExitInvalid || !strings.Contains(stdout.String(), "missing-baseline") {
		t.Fatalf("exit %d, want 2 (missing baseline)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	r, err := result.Read(filepath.Join(out, "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r, stdout.String() + stderr.String() + string(data)
}

// TestGateSendsKeyAndScrapesMetrics: gate sends PERFGATE_API_KEY as the
// bearer token (never writing it anywhere), fills each trial's Server map
// from /metrics with the exact counter deltas of the trial, and warns when
// the client's TTFT exceeds the server's by far (here an 80 ms network).
func TestGateSendsKeyAndScrapesMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end gate run against the simulator")
	}
	t.Parallel()
	const key = "sk-perfgate-test-key"
	st := newServeTestServer(t, key, 80*time.Millisecond, false)
	r, everything := serveGateIn(t, testEnviron("PERFGATE_API_KEY="+key, "OPENAI_API_KEY="), st.url)
	if st.rejected.Load() != 0 || st.authorized.Load() == 0 {
		t.Errorf("%d requests rejected for a missing key, %d authorized", st.rejected.Load(), st.authorized.Load())
	}
	if strings.Contains(everything, key) {
		t.Error("the API key appears in the output or the result file")
	}
	if len(r.ValidTrials()) != 2 {
		t.Fatalf("%d valid trials, want 2: %+v", len(r.ValidTrials()), r.Trials)
	}
	for _, tr := range r.Trials {
		// decode-a: 16 requests of 8 output tokens each, warmups excluded.
		if got := tr.Server["vllm:generation_tokens_total.delta"]; got != 16*8 {
			t.Errorf("trial %d: generation tokens delta %v, want 128; server %v", tr.Index, got, tr.Server)
		}
		if _, ok := tr.Server["ttft_s.server_mean"]; !ok {
			t.Errorf("trial %d: no server TTFT mean: %v", tr.Index, tr.Server)
		}
		warned := false
		for _, w := range tr.Warnings {
			warned = warned || strings.Contains(w, "client TTFT mean")
		}
		if !warned {
			t.Errorf("trial %d: no client-versus-server TTFT warning with an 80 ms network: %q", tr.Index, tr.Warnings)
		}
	}
}

// TestGateServerWithoutMetrics: a server whose /metrics answers 404 runs
// normally; each trial has no Server figures and exactly one note.
func TestGateServerWithoutMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end gate run against the simulator")
	}
	t.Parallel()
	st := newServeTestServer(t, "sk-openai", 0, true)
	r, _ := serveGateIn(t, testEnviron("PERFGATE_API_KEY=", "OPENAI_API_KEY=sk-openai"), st.url)
	if len(r.ValidTrials()) != 2 || !r.Complete {
		t.Fatalf("%d valid trials, complete=%v; want 2 and complete", len(r.ValidTrials()), r.Complete)
	}
	for _, tr := range r.Trials {
		var notes []string
		for _, w := range tr.Warnings {
			if strings.Contains(w, "metrics") {
				notes = append(notes, w)
			}
		}
		if len(tr.Server) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "404") {
			t.Errorf("trial %d: server %v, metrics notes %q; want none and one note naming the 404", tr.Index, tr.Server, notes)
		}
	}
}

// TestGateGPUs: --gpus (server.gpus) applies to workloads without gpus of
// their own: the result records the count and per-GPU throughputs.
func TestGateGPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end gate run against the simulator")
	}
	t.Parallel()
	st := newServeTestServer(t, "k", 0, false)
	r, _ := serveGateIn(t, testEnviron("PERFGATE_API_KEY=k"), st.url, "--gpus", "4")
	if r.Server.GPUs != 4 {
		t.Fatalf("server.gpus %d, want 4", r.Server.GPUs)
	}
	for _, tr := range r.Trials {
		if got, want := tr.Values["output_throughput_per_gpu"], tr.Values["output_throughput"]/4; want <= 0 || got != want {
			t.Errorf("trial %d: output_throughput_per_gpu %v, want %v", tr.Index, got, want)
		}
	}
}
