package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestRunRequestOptions runs, against the simulator, a trace replay with
// every request option and a ramp-up workload: both complete, results
// record the extra percentile and the options, and the header secret read
// from the environment is in no file perfgate wrote.
func TestRunRequestOptions(t *testing.T) {
	const secret = "tenant-run-secret-7781"
	t.Parallel()
	ts := runSim(t)
	dir := t.TempDir()
	trace := "{\"timestamp\": 0, \"input_length\": 32, \"output_length\": 6, \"hash_ids\": [1, 2]}\n" +
		"{\"timestamp\": 40, \"input_length\": 20, \"output_length\": 4, \"hash_ids\": [1, 3]}\n" +
		"{\"timestamp\": 90, \"input_length\": 12, \"output_length\": 5, \"id\": 7}\n" +
		"{\"timestamp\": 120, \"input_length\": 16, \"output_length\": 3, \"hash_ids\": [1]}\n"
	if err := os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(trace))
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replay := write("replay.yaml", `name: opt-trace
dataset:
  kind: trace
  path: trace.jsonl
  sha256: `+hex.EncodeToString(sum[:])+`
  time_scale: 0.001
load: {requests: 4, concurrency: 2}
sampling: {top_k: 20, repetition_penalty: 1.05}
extra_body: {chat_template_kwargs: {enable_thinking: false}}
headers:
  X-Route: canary
  X-Tenant-Key: {env: PERFGATE_TEST_TENANT}
metric_percentiles: [75]
gate:
  - {metric: tpot_ms.p75, tolerance: 5%}
warmups: 1
`)
	ramp := write("ramp.yaml", `name: opt-ramp
dataset: {kind: random, input_tokens: 8, output_tokens: 4, seed: 2}
load:
  requests: 6
  ramp_up: {strategy: exponential, start_rps: 20, end_rps: 80}
warmups: 0
`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runMainIn(context.Background(), testEnviron("PERFGATE_TEST_TENANT="+secret), append(runLax,
		"-w", replay, "-w", ramp, "--url", ts.URL, "-o", out, "--trials", "1")...)
	if code != ExitPass {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "trace.jsonl:3: warning: fields ignored: id") {
		t.Errorf("the ignored field was not reported:\n%s", stderr)
	}
	rs, err := result.ReadDir(out)
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d results: %v", len(rs), err)
	}
	for _, r := range rs {
		if len(r.Trials) != 1 || r.Trials[0].Completed == 0 {
			t.Errorf("%s: trials %+v", r.Workload.Cell, r.Trials)
		}
	}
	var trace1 *result.Result
	for _, r := range rs {
		if r.Workload.Cell == "opt-trace" {
			trace1 = r
		}
	}
	if trace1 == nil {
		t.Fatal("no opt-trace result")
	}
	if _, ok := trace1.Trials[0].Values["tpot_ms.p75"]; !ok {
		t.Error("tpot_ms.p75 not recorded")
	}
	spec, _ := trace1.Workload.ParseSpec()
	if len(spec.Headers) != 2 || spec.Headers[1].Env != "PERFGATE_TEST_TENANT" || string(spec.ExtraBody) == "" {
		t.Errorf("spec %s", trace1.Workload.Spec)
	}
	err = filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the header secret", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout+stderr, secret) {
		t.Error("the header secret was printed")
	}
}
