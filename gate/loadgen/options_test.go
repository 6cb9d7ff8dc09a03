package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestBodyCarriesSamplingAndExtraBody: the sampling extensions go out
// under vLLM's names, extra_body's members are merged into every body
// (nested values intact), and a manifest without them encodes exactly as
// before.
func TestBodyCarriesSamplingAndExtraBody(t *testing.T) {
	k, minP, pen := 40, 0.05, 1.1
	m := manifest(1, 1, 0, 4)
	plain, err := encodeBodies(m, m.Requests, "model", "", engine.Must(engine.VLLM), true)
	if err != nil {
		t.Fatal(err)
	}
	m.Sampling.TopK, m.Sampling.MinP, m.Sampling.RepetitionPenalty = &k, &minP, &pen
	m.ExtraBody = json.RawMessage(`{"chat_template_kwargs":{"enable_thinking":false},"priority":-1}`)
	b, err := encodeBodies(m, m.Requests, "model", "", engine.Must(engine.VLLM), true)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b[0], &got); err != nil {
		t.Fatalf("merged body is not JSON: %v\n%s", err, b[0])
	}
	kw, _ := got["chat_template_kwargs"].(map[string]any)
	if got["top_k"] != 40.0 || got["min_p"] != 0.05 || got["repetition_penalty"] != 1.1 ||
		kw["enable_thinking"] != false || got["priority"] != -1.0 || got["max_tokens"] != 4.0 || got["stream"] != true {
		t.Errorf("body %s", b[0])
	}
	if _, ok := got["frequency_penalty"]; ok {
		t.Errorf("an unset penalty was sent: %s", b[0])
	}
	if strings.Contains(string(plain[0]), "top_k") || !strings.HasPrefix(string(b[0]), strings.TrimSuffix(string(plain[0]), "}")[:20]) {
		t.Errorf("plain body %s", plain[0])
	}
	m.ExtraBody = json.RawMessage(`{"cache_salt":"x"}`) // a key validation would refuse
	if _, err := encodeBodies(m, m.Requests, "model", "salt", engine.Must(engine.VLLM), true); err == nil || !strings.Contains(err.Error(), `"cache_salt"`) {
		t.Errorf("a duplicate body key was sent: %v", err)
	}
	if mergeExtra([]byte(`{"a":1}`), nil) == nil || string(mergeExtra([]byte(`{"a":1}`), []byte(`{}`))) != `{"a":1}` {
		t.Error("an empty extra body changed the request")
	}
}

// TestHeadersSentAndSecretsScrubbed: literal and environment headers
// reach the server on every request; the environment value, echoed back
// by the server in an error body, never reaches the result.
func TestHeadersSentAndSecretsScrubbed(t *testing.T) {
	const secret = "tenant-secret-value-42"
	var mu sync.Mutex
	var seen []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		// A gateway that routes by header answers nothing without it.
		if r.Header.Get("X-Route") != "canary" || r.Header.Get("X-Tenant-Key") != secret || r.Header.Get("Authorization") != "Bearer sk-secret" {
			http.Error(w, "no route", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","max_model_len":4096}]}`)
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Route")+"|"+r.Header.Get("X-Tenant-Key"))
		mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"bad tenant %s"}`, r.Header.Get("X-Tenant-Key"))
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	m := manifest(3, 1, 0, 2)
	m.Headers = []workload.Header{{Name: "X-Route", Value: "canary"}, {Name: "X-Tenant-Key", Env: "TENANT_KEY"}}
	r := newRunner(t, ts.URL, func(c *Config) {
		c.Warmups = 0
		c.LookupEnv = func(k string) (string, bool) { return map[string]string{"TENANT_KEY": secret}[k], k == "TENANT_KEY" }
	})
	res, err := r.Run(context.Background(), m, 1)
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0] != "canary|"+secret {
		t.Errorf("server saw %q", seen)
	}
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), secret) || (err != nil && strings.Contains(err.Error(), secret)) {
		t.Errorf("the header's secret reached the result or error")
	}
	if !strings.Contains(string(out), "bad tenant") {
		t.Errorf("the error body was not kept at all: %s", res.Trials[0].ErrorSamples)
	}
}

// TestHeaderFromUnsetVariable fails before any request, naming the header
// and the variable.
func TestHeaderFromUnsetVariable(t *testing.T) {
	ts := newFake(t, &fake{})
	m := manifest(2, 1, 0, 2)
	m.Headers = []workload.Header{{Name: "X-Tenant-Key", Env: "PERFGATE_TEST_UNSET"}}
	for name, lookup := range map[string]func(string) (string, bool){
		"unset":     func(string) (string, bool) { return "", false },
		"no lookup": nil,
	} {
		r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0; c.LookupEnv = lookup })
		_, err := r.Run(context.Background(), m, 1)
		if err == nil || !strings.Contains(err.Error(), "header X-Tenant-Key") || !strings.Contains(err.Error(), "PERFGATE_TEST_UNSET") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestMetricPercentilesRecorded: a manifest's extra percentiles appear in
// every trial beside the fixed statistics.
func TestMetricPercentilesRecorded(t *testing.T) {
	ts := newFake(t, &fake{})
	m := manifest(4, 2, 0, 3)
	m.MetricPercentiles = []float64{25, 75, 99}
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Trials[0].Values
	for _, id := range []string{"ttft_ms.p25", "tpot_ms.p75", "e2el_ms.p99", "itl_ms.p75"} {
		if _, ok := v[id]; !ok {
			t.Errorf("%s not recorded", id)
		}
	}
	if v["e2el_ms.p25"] > v["e2el_ms.p75"] {
		t.Errorf("p25 %v > p75 %v", v["e2el_ms.p25"], v["e2el_ms.p75"])
	}
	if _, ok := v["ttft_ms.p10"]; ok {
		t.Error("p10 recorded without being asked for")
	}
}

// TestEnvHeaderValues: the values of {env: NAME} headers, once each across
// workloads, whatever the variable's name; literal values and unset
// variables are not among them.
func TestEnvHeaderValues(t *testing.T) {
	env := map[string]string{"MY_HEADER_VALUE": "v-one-123", "TENANT_KEY": "v-two-456", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	a, b := manifest(1, 1, 0, 1), manifest(1, 1, 0, 1)
	a.Headers = []workload.Header{{Name: "X-Route", Value: "canary"}, {Name: "X-Api-Token", Env: "MY_HEADER_VALUE"}, {Name: "X-Gone", Env: "UNSET_VAR"}}
	b.Headers = []workload.Header{{Name: "X-Again", Env: "MY_HEADER_VALUE"}, {Name: "X-Tenant", Env: "TENANT_KEY"}, {Name: "X-Empty", Env: "EMPTY"}}
	for _, tc := range []struct {
		name   string
		ms     []*workload.Manifest
		lookup func(string) (string, bool)
		want   []string
	}{
		{"both", []*workload.Manifest{a, b}, lookup, []string{"v-one-123", "v-two-456"}},
		{"no headers", []*workload.Manifest{manifest(1, 1, 0, 1)}, lookup, nil},
		{"no lookup", []*workload.Manifest{a}, nil, nil},
	} {
		if got := EnvHeaderValues(tc.ms, tc.lookup); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
