package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// TestRequestOptions loads a workload with every vllm bench serve request
// option and checks what the manifest, its spec and its plan carry.
func TestRequestOptions(t *testing.T) {
	m := load1(t, "testdata/valid/options.yaml")[0]
	if got, want := string(m.ExtraBody), `{"chat_template_kwargs":{"enable_thinking":false},"priority":1}`; got != want {
		t.Errorf("extra body %s, want %s", got, want)
	}
	wantHeaders := []Header{{Name: "X-Route", Value: "canary"}, {Name: "X-Tenant-Key", Env: "PERFGATE_TENANT_KEY"}}
	if len(m.Headers) != 2 || m.Headers[0] != wantHeaders[0] || m.Headers[1] != wantHeaders[1] {
		t.Errorf("headers %+v", m.Headers)
	}
	s := m.Sampling
	if *s.TopK != 20 || *s.MinP != 0.05 || *s.FrequencyPenalty != 0.5 || *s.PresencePenalty != -0.5 || *s.RepetitionPenalty != 1.05 {
		t.Errorf("sampling %+v", s)
	}
	if m.RampUp == nil || *m.RampUp != (RampUp{Strategy: RampLinear, StartRPS: 1, EndRPS: 10}) || !m.Unlimited() {
		t.Errorf("ramp %+v, rate %v", m.RampUp, m.Rate)
	}
	if len(m.MetricPercentiles) != 3 || len(m.Gate) != 1 || m.Gate[0].Metric != "tpot_ms.p75" {
		t.Errorf("percentiles %v, gate %+v", m.MetricPercentiles, m.Gate)
	}
	spec, err := (result.Workload{Spec: m.Spec}).ParseSpec()
	if err != nil {
		t.Fatal(err)
	}
	if string(spec.ExtraBody) != string(m.ExtraBody) || len(spec.Headers) != 2 || spec.Load.RampUp == nil ||
		len(spec.MetricPercentiles) != 3 || spec.Sampling.TopK == nil {
		t.Errorf("spec lost options: %s", m.Spec)
	}
	var buf bytes.Buffer
	if err := WritePlan(&buf, []*Manifest{m}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"linear from 1 to 10 req/s", "X-Tenant-Key: (from $PERFGATE_TENANT_KEY)", "X-Route: canary", "also p25, p75, p99", `"enable_thinking":false`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestRequestOptionsHash: the options change the hash when they change
// what is sent; their spelling in the file does not; metric_percentiles
// (reporting) does not.
func TestRequestOptionsHash(t *testing.T) {
	const base = "name: h\ndataset: {kind: random, input_tokens: 8, output_tokens: 4, seed: 1}\n"
	hash := func(extra string) string {
		t.Helper()
		if !strings.Contains(extra, "load:") {
			extra += "load: {requests: 4}\n"
		}
		f, err := Parse("h.yaml", []byte(base+extra))
		if err != nil {
			t.Fatal(err)
		}
		ms, _, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		return ms[0].Hash
	}
	plain := hash("")
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"extra_body: {a: 1, b: {c: true}}\n", "extra_body:\n  b: {c: true}\n  a: 1\n", true},
		{"extra_body: {a: 1}\n", "extra_body: {a: 2}\n", false},
		{"headers: {X-A: b}\n", "headers: {X-A: c}\n", false},
		{"headers: {X-Key: {env: A}}\n", "headers: {X-Key: {env: B}}\n", false},
		{"sampling: {top_k: 5}\n", "sampling: {top_k: 6}\n", false},
		{"metric_percentiles: [25]\n", "metric_percentiles: [75]\n", true},
		{"load: {requests: 4}\n", "load: {requests: 4, ramp_up: {strategy: linear, start_rps: 1, end_rps: 2}}\n", false},
	} {
		a, b := hash(c.a), hash(c.b)
		if (a == b) != c.same {
			t.Errorf("%q vs %q: same hash = %v, want %v", c.a, c.b, a == b, c.same)
		}
	}
	if hash("metric_percentiles: [25]\n") != plain {
		t.Error("metric_percentiles changed the hash of what is sent")
	}
}

// TestRampArrivals follows vLLM's ramp: request i of n goes out at rate
// start + (end-start)*i/(n-1) (or start*(end/start)^(i/(n-1))), each delay
// drawn at that rate and summed without rescaling.
func TestRampArrivals(t *testing.T) {
	sum := func(r RampUp, n int) []time.Duration {
		out := make([]time.Duration, n)
		total := 0.0
		for i := range out {
			total += 1 / rampRate(r, i, n)
			out[i] = seconds(total)
		}
		return out
	}
	for _, r := range []RampUp{{Strategy: RampLinear, StartRPS: 1, EndRPS: 9}, {Strategy: RampExponential, StartRPS: 0.5, EndRPS: 32}, {Strategy: RampLinear, StartRPS: 4, EndRPS: 4}} {
		got := rampArrivals(5, r, math.Inf(1), newStream(1, "arrivals"))
		want := sum(r, 5)
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%+v: arrival %d = %v, want %v", r, i, got[i], want[i])
			}
		}
	}
	lin := RampUp{Strategy: RampLinear, StartRPS: 1, EndRPS: 9}
	if rampRate(lin, 0, 5) != 1 || rampRate(lin, 2, 5) != 5 || rampRate(lin, 4, 5) != 9 || rampRate(lin, 0, 1) != 1 {
		t.Error("linear ramp rates")
	}
	exp := RampUp{Strategy: RampExponential, StartRPS: 1, EndRPS: 16}
	if rampRate(exp, 2, 5) != 4 || rampRate(exp, 4, 5) != 16 {
		t.Errorf("exponential ramp: %v %v", rampRate(exp, 2, 5), rampRate(exp, 4, 5))
	}
	// Poisson on a ramp: the same seed gives the same schedule, another
	// seed another, and the rate rises: the second half of 2000 requests
	// takes far less time than the first.
	r := RampUp{Strategy: RampLinear, StartRPS: 1, EndRPS: 20}
	a := rampArrivals(2000, r, 1, newStream(5, "arrivals"))
	b := rampArrivals(2000, r, 1, newStream(5, "arrivals"))
	c := rampArrivals(2000, r, 1, newStream(6, "arrivals"))
	if a[1999] != b[1999] || a[1999] == c[1999] {
		t.Errorf("not deterministic per seed: %v %v %v", a[1999], b[1999], c[1999])
	}
	first, second := a[999], a[1999]-a[999]
	if !(second < first/2) {
		t.Errorf("the ramp does not speed up: first half %v, second %v", first, second)
	}
	for i := 1; i < len(a); i++ {
		if a[i] < a[i-1] {
			t.Fatalf("arrival %d before %d", i, i-1)
		}
	}
}

// TestCustomJSONLFields: vLLM custom lines with extra fields load; the
// fields are named once, at the first line that has one, in a warning the
// loader reports and the manifest (and plan) carries.
func TestCustomJSONLFields(t *testing.T) {
	var warnings []*Error
	ms, err := Loader{Warn: func(e *Error) { warnings = append(warnings, e) }}.LoadFile("testdata/valid/custom-jsonl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := "testdata/data/custom.jsonl:1: warning: fields ignored: category, id"
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0].Error(), want) {
		t.Fatalf("warnings %v, want %q", warnings, want)
	}
	m := ms[0]
	if len(m.Warnings) != 1 || !strings.HasPrefix(m.Warnings[0], want) {
		t.Errorf("manifest warnings %q", m.Warnings)
	}
	if len(m.Requests) != 3 || m.Requests[2].MaxTokens != 16 || m.Requests[0].Prompt != "Summarise the plot of Hamlet." {
		t.Errorf("requests %+v", m.Requests)
	}
	var buf bytes.Buffer
	_ = WritePlan(&buf, ms)
	if !strings.Contains(buf.String(), "  "+want) {
		t.Errorf("plan lacks the warning:\n%s", buf.String())
	}
}

// TestTraceJSONL replays a Mooncake-style trace: own timestamps (ms,
// scaled), hash blocks shared between requests, a prompt sent as written,
// ignored fields warned about.
func TestTraceJSONL(t *testing.T) {
	var warnings []string
	ms, err := Loader{Warn: func(e *Error) { warnings = append(warnings, e.Error()) }}.LoadFile("testdata/valid/trace-jsonl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	rs := m.Requests
	if len(rs) != 5 {
		t.Fatalf("%d requests", len(rs))
	}
	wantAt := []time.Duration{0, 250 * time.Millisecond, 250 * time.Millisecond, 1500 * time.Millisecond, 4 * time.Second}
	wantIn := []int{40, 33, 20, estimateTokens("Replay this prompt as written."), 16}
	wantOut := []int{8, 4, 6, 5, 2}
	for i, r := range rs {
		if r.Arrival != wantAt[i] || r.InputTokens != wantIn[i] || r.MaxTokens != wantOut[i] {
			t.Errorf("request %d: at %v in %d out %d", i, r.Arrival, r.InputTokens, r.MaxTokens)
		}
	}
	if len(rs[0].PromptIDs) != 40 || len(rs[1].PromptIDs) != 33 || len(rs[2].PromptIDs) != 20 {
		t.Fatalf("prompt lengths %d %d %d", len(rs[0].PromptIDs), len(rs[1].PromptIDs), len(rs[2].PromptIDs))
	}
	// Requests 0 and 1 share hash ids 1 and 2 (32 tokens), not block 3/9;
	// request 4 is block 1 alone; request 2 has no hash ids.
	if !equalInts(rs[0].PromptIDs[:32], rs[1].PromptIDs[:32]) || equalInts(rs[0].PromptIDs[32:], rs[1].PromptIDs[32:33]) {
		t.Error("shared hash blocks differ, or distinct blocks match")
	}
	if !equalInts(rs[4].PromptIDs, rs[0].PromptIDs[:16]) || equalInts(rs[2].PromptIDs[:16], rs[0].PromptIDs[:16]) {
		t.Error("block 1 is not the same in every request, or unhashed content copies it")
	}
	if rs[3].Prompt != "Replay this prompt as written." {
		t.Errorf("prompt %q", rs[3].Prompt)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "trace.jsonl:4: warning: fields ignored: session") ||
		!strings.Contains(warnings[1], "load.requests is 10 but the trace ends after 5 requests") {
		t.Errorf("warnings %q", warnings)
	}
	if m.Concurrency != 4 || len(m.Warmups) != 2 {
		t.Errorf("concurrency %d, %d warmups", m.Concurrency, len(m.Warmups))
	}
	var buf bytes.Buffer
	_ = WritePlan(&buf, ms)
	if !strings.Contains(buf.String(), "the timestamps of ../data/trace.jsonl (jsonl), time_scale 0.001") {
		t.Errorf("plan does not name the replay:\n%s", buf.String())
	}
	again := load1(t, "testdata/valid/trace-jsonl.yaml")[0]
	if again.Hash != m.Hash {
		t.Error("a trace does not expand to the same manifest twice")
	}
}

// TestTraceCSV replays BurstGPT's columns: failed rows (0 response
// tokens) skipped with a warning, time scaled, the window cut by
// max_duration, chat prompts of the recorded lengths.
func TestTraceCSV(t *testing.T) {
	var warnings []string
	ms, err := Loader{Warn: func(e *Error) { warnings = append(warnings, e.Error()) }}.LoadFile("testdata/valid/trace-csv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rs := ms[0].Requests
	// Rows at 5, 7.25 and 9 s (5.5 failed) at half time: 0, 1.125, 2 s.
	if len(rs) != 3 || rs[1].Arrival != 1125*time.Millisecond || rs[2].Arrival != 2*time.Second ||
		rs[1].InputTokens != 335 || rs[1].MaxTokens != 152 || len(strings.Fields(rs[1].Messages[0].Content)) != 335 {
		t.Fatalf("requests %+v", rs)
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{"burstgpt.csv:1: warning: columns ignored: Model, Total tokens, Log Type",
		"burstgpt.csv:3: warning: 1 rows with 0 Response tokens (failed requests) skipped"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	// max_duration cuts the replay: at 1 s only the first request fits.
	data := strings.Replace(readFile(t, "testdata/valid/trace-csv.yaml"), "max_duration: 3s", "max_duration: 1s", 1)
	f, err := Parse("testdata/valid/trace-csv.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	cut, _, err := f.Expand()
	if err != nil || len(cut[0].Requests) != 1 {
		t.Fatalf("max_duration 1s: %v, %d requests", err, len(cut[0].Requests))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTraceFields replays traces whose keys and columns are named
// otherwise (vLLM's --timed-trace-label-*): Azure's csv with dates, and a
// jsonl trace with its own labels and date strings.
func TestTraceFields(t *testing.T) {
	var warnings []string
	ms, err := Loader{Warn: func(e *Error) { warnings = append(warnings, e.Error()) }}.LoadFile("testdata/valid/trace-azure.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rs := ms[0].Requests
	if len(rs) != 3 || rs[1].Arrival != 4314579*time.Microsecond || rs[2].Arrival != 14319410*time.Microsecond ||
		rs[1].InputTokens != 396 || rs[1].MaxTokens != 109 {
		t.Fatalf("requests %+v", rs)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "azure.csv:4: warning: 1 rows with 0 GeneratedTokens (failed requests) skipped") {
		t.Errorf("warnings %q", warnings)
	}

	dir := t.TempDir()
	trace := `{"ts": "2024-05-01T10:00:00Z", "in": 8, "out": 2, "timestamp": 99}` + "\n" +
		`{"ts": "2024-05-01T10:00:02.5Z", "in": 4, "out": 3}` + "\n"
	if err := os.WriteFile(dir+"/t.jsonl", []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(trace))
	wl := "name: labels\ndataset:\n  kind: trace\n  path: t.jsonl\n  sha256: " + hex.EncodeToString(sum[:]) +
		"\n  fields: {timestamp: ts, input_length: in, output_length: out}\nload: {requests: 5}\n"
	if err := os.WriteFile(dir+"/w.yaml", []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	warnings = nil
	ms, err = Loader{Warn: func(e *Error) { warnings = append(warnings, e.Error()) }}.LoadFile(dir + "/w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rs = ms[0].Requests
	if len(rs) != 2 || rs[1].Arrival != 2500*time.Millisecond || rs[0].InputTokens != 8 || rs[1].MaxTokens != 3 {
		t.Fatalf("requests %+v", rs)
	}
	if len(warnings) == 0 || !strings.Contains(warnings[0], "t.jsonl:1: warning: fields ignored: timestamp (a trace uses ts, in, out, hash_ids, prompt)") {
		t.Errorf("warnings %q", warnings)
	}
}
