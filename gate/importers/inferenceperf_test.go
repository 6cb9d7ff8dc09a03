package importers

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
)

const ipDir = "testdata/inference-perf/run-1/"

func TestParseInferencePerf(t *testing.T) {
	runs, err := ParseInferencePerf("stage_0", readFixture(t, ipDir+"stage_0_lifecycle_metrics.json"), readFixture(t, ipDir+"config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	s := r.Shape
	if s.NumPrompts != 240 || s.RequestRate != 4 || s.Burstiness != 1 || s.MeanInputLen != 512 || s.MeanOutputLen != 128 || s.EndpointType != "completions" || r.Model != "Qwen/Qwen3-8B" {
		t.Errorf("shape %+v model %q", s, r.Model)
	}
	if r.Completed != 239 || r.Failed != 1 || r.Errors["503 - Service Unavailable"] != 1 || !strings.Contains(r.ErrorSamples["503 - Service Unavailable"], "overloaded") {
		t.Errorf("counts %d/%d errors %v %v", r.Completed, r.Failed, r.Errors, r.ErrorSamples)
	}
	// Seconds become milliseconds.
	if x := r.Values["ttft_ms.median"]; math.Abs(x-40) > 1e-9 || r.Values["ttft_ms.p50"] != x {
		t.Errorf("ttft median %v p50 %v", x, r.Values["ttft_ms.p50"])
	}
	if _, ok := r.Values["e2el_ms.p99.9"]; !ok {
		t.Error("no e2el_ms.p99.9")
	}
	for id := range r.Values {
		if _, ok := metrics.Lookup(id); !ok {
			t.Errorf("%s is no perfgate id", id)
		}
	}
	sum, err := ParseInferencePerf("summary", readFixture(t, ipDir+"summary_lifecycle_metrics.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(sum[0].Notes, "\n"); !strings.Contains(n, "import the stage_N_lifecycle_metrics.json") || !strings.Contains(n, "no config.yaml") {
		t.Errorf("summary notes %q", n)
	}
}

func TestParseInferencePerfErrors(t *testing.T) {
	for _, tc := range []struct {
		in, cfg, want string
	}{
		{`{"benchmarks": []}`, "", "not an inference-perf lifecycle report"},
		{`{"successes": {"count": -1}, "load_summary": {}}`, "", "successes.count"},
		{`{"successes": {"count": 1}, "load_summary": {}}`, "api: [", "config.yaml"},
	} {
		var cfg []byte
		if tc.cfg != "" {
			cfg = []byte(tc.cfg)
		}
		_, err := ParseInferencePerf("s.json", []byte(tc.in), cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.json") {
			t.Errorf("%s: error %v, want one naming s.json and %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseInferencePerf(f *testing.F) {
	f.Add(readFixture(f, ipDir+"stage_0_lifecycle_metrics.json"), readFixture(f, ipDir+"config.yaml"))
	f.Add([]byte(`{"successes": {"count": 2, "latency": {"time_to_first_token": {"mean": NaN}}}, "load_summary": {"requested_rate": Infinity}}`), []byte{})
	f.Fuzz(func(t *testing.T, data, cfg []byte) {
		if len(cfg) == 0 {
			cfg = nil
		}
		runs, err := ParseInferencePerf("f", data, cfg)
		if err != nil {
			return
		}
		if _, err := Build(runs, Options{Name: "x"}); err != nil {
			t.Fatalf("Build of parsed runs: %v", err)
		}
	})
}
