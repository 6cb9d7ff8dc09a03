package importers

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
)

func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseGuideLLM(t *testing.T) {
	runs, err := ParseGuideLLM("benchmarks.json", readFixture(t, "testdata/guidellm/benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per benchmark (2)", len(runs))
	}
	c, r := runs[0], runs[1]
	if c.Label != "c16" || c.Shape.MaxConcurrency != 16 || !math.IsInf(c.Shape.RequestRate, 1) || c.Shape.NumPrompts != 200 ||
		c.Shape.MeanInputLen != 512 || c.Shape.MeanOutputLen != 128 || c.Shape.EndpointType != "text_completions" || c.Model != "Qwen/Qwen3-8B" {
		t.Errorf("concurrent run: %+v shape %+v", c.Label, c.Shape)
	}
	if r.Label != "rate4" || r.Shape.RequestRate != 4 || !math.IsInf(r.Shape.Burstiness, 1) || r.Completed != 198 || r.Failed != 2 || r.Errors["guidellm"] != 2 ||
		!strings.Contains(r.ErrorSamples["guidellm"], "503") {
		t.Errorf("constant run: %+v shape %+v errors %v %v", r.Label, r.Shape, r.Errors, r.ErrorSamples)
	}
	// Units: request_latency is in seconds, e2el_ms in milliseconds;
	// GuideLLM's inter-token latency is perfgate's TPOT.
	if e, ttft := c.Values["e2el_ms.mean"], c.Values["ttft_ms.mean"]; !(e > 1000 && e < 2000) || !(ttft > 30 && ttft < 50) {
		t.Errorf("e2el_ms.mean %v, ttft_ms.mean %v", e, ttft)
	}
	if tp := c.Values["tpot_ms.p99.9"]; !(tp > 8 && tp < 10) {
		t.Errorf("tpot_ms.p99.9 %v", tp)
	}
	for id := range c.Values {
		if _, ok := metrics.Lookup(id); !ok {
			t.Errorf("value %s is no perfgate metric id", id)
		}
	}
	if len(c.Requests) != 6 || len(r.Requests) != 8 {
		t.Errorf("per-request records %d and %d, want the 6 sampled (+2 errored)", len(c.Requests), len(r.Requests))
	}
	if x := c.Values["request_throughput"]; !(x > 0) || math.Abs(c.Values["total_token_throughput"]-(512+128)*x) > 1e-9*x {
		t.Errorf("throughputs %v %v", x, c.Values["total_token_throughput"])
	}
}

func TestParseGuideLLMErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"benchmarks": []}`, "holds no benchmarks"},
		{`{"results": []}`, "not a GuideLLM report"},
		{`{"benchmarks": [{"config": {"strategy": {"type_": "warp"}}}]}`, `strategy "warp"`},
		{`{"benchmarks": [{"config": {"strategy": {"type_": "concurrent"}}}]}`, "without a stream count"},
		{`{"benchmarks": [{"config": {"strategy": {"type_": "synchronous"}}, "metrics": {"request_totals": {"successful": 1.5, "errored": 0}}}]}`, "request_totals"},
		{"{\n\"benchmarks\": [\n}", "line 3"},
	} {
		_, err := ParseGuideLLM("f.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "f.json") {
			t.Errorf("%s: error %v, want one naming f.json and %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseGuideLLM(f *testing.F) {
	f.Add(readFixture(f, "testdata/guidellm/benchmarks.json"))
	f.Add([]byte(`{"benchmarks": [{"config": {"strategy": {"type_": "poisson", "rate": 2}}, "metrics": {"request_totals": {"successful": 3, "errored": 0}, "time_to_first_token_ms": {"successful": {"count": 3, "mean": NaN}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ParseGuideLLM("f", data)
		if err != nil {
			return
		}
		if _, err := Build(runs, Options{Name: "x"}); err != nil {
			t.Fatalf("Build of parsed runs: %v", err)
		}
	})
}

// TestParseGuideLLMEarlierLayout: GuideLLM 0.2's layout keeps the
// strategy and the request limit under args, the totals beside metrics
// and the model under worker.
func TestParseGuideLLMEarlierLayout(t *testing.T) {
	doc := `{"benchmarks": [{"type_": "generative_benchmark", "run_id": "r",
	  "args": {"strategy_index": 0, "strategy": {"type_": "poisson", "rate": 2.5, "random_seed": 42}, "max_number": 50, "max_duration": null},
	  "run_stats": {"start_time": 100.0, "end_time": 130.0, "requests_made": {"successful": 49, "errored": 1, "incomplete": 0, "total": 50}},
	  "worker": {"type_": "generative_requests_worker", "backend_type": "openai_http", "backend_target": "http://127.0.0.1:8000", "backend_model": "m"},
	  "request_loader": {"type_": "generative_request_loader", "data": "prompt_tokens=256,output_tokens=64"},
	  "request_totals": {"successful": 49, "errored": 1, "incomplete": 0, "total": 50},
	  "metrics": {"time_to_first_token_ms": {"successful": {"mean": 30.5, "median": 30.0, "mode": 29.0, "variance": 4.0, "std_dev": 2.0, "min": 27.0, "max": 41.0, "count": 49, "total_sum": 1494.5,
	      "percentiles": {"p001": 27.0, "p01": 27.0, "p05": 27.5, "p10": 28.0, "p25": 29.0, "p50": 30.0, "p75": 31.5, "p90": 33.0, "p95": 35.0, "p99": 40.0, "p999": 41.0}}},
	    "prompt_token_count": {"successful": {"mean": 256.0, "count": 49, "total_sum": 12544.0}},
	    "output_token_count": {"successful": {"mean": 64.0, "count": 49, "total_sum": 3136.0}}},
	  "start_time": 100.0, "end_time": 130.0, "duration": 30.0}]}`
	runs, err := ParseGuideLLM("old.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.Model != "m" || r.Shape.RequestRate != 2.5 || r.Shape.Burstiness != 1 || r.Shape.NumPrompts != 50 || r.Completed != 49 || r.Failed != 1 ||
		r.Shape.MeanInputLen != 256 || r.Shape.MeanOutputLen != 64 || r.DurationS != 30 || r.Values["ttft_ms.p99"] != 40 {
		t.Errorf("run %+v shape %+v", r, r.Shape)
	}
}
