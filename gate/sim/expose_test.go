package sim

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsAreGroundTruth parses /metrics with Prometheus's own parser
// and checks the vLLM series against what the server produced.
func TestMetricsAreGroundTruth(t *testing.T) {
	srv, url := start(t, fastConfig(t))
	concurrently(t, url, 6, func(i int) string {
		return fmt.Sprintf(`{"prompt":[1,2,3,%d],"max_tokens":%d,"ignore_eos":true,"stream":true}`, i, 5+i)
	})
	_, body := get(t, url, "/metrics")
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	value := func(name string) float64 {
		f, ok := fams[name]
		if !ok || len(f.Metric) == 0 {
			t.Fatalf("%s missing", name)
		}
		m := f.Metric[0]
		for _, l := range m.Label {
			if l.GetName() == "model_name" && l.GetValue() != "sim-fast" {
				t.Errorf("%s model_name %q", name, l.GetValue())
			}
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			return m.Counter.GetValue()
		case dto.MetricType_GAUGE:
			return m.Gauge.GetValue()
		case dto.MetricType_HISTOGRAM:
			return float64(m.Histogram.GetSampleCount())
		}
		t.Fatalf("%s has type %v", name, f.GetType())
		return 0
	}
	st := srv.Stats()
	wantGen := 5 + 6 + 7 + 8 + 9 + 10
	checks := []struct {
		name string
		want float64
	}{
		{"vllm:generation_tokens_total", float64(wantGen)},
		{"vllm:prompt_tokens_total", 24},
		{"vllm:num_requests_running", 0},
		{"vllm:num_requests_waiting", 0},
		{"vllm:num_preemptions_total", 0},
		{"vllm:prefix_cache_queries_total", 24},
		{"vllm:prefix_cache_hits_total", 0},
		{"vllm:time_to_first_token_seconds", 6},
		{"vllm:inter_token_latency_seconds", float64(wantGen - 6)},
		{"vllm:e2e_request_latency_seconds", 6},
		{"vllm:request_queue_time_seconds", 6},
		{"sim_token_events_total", float64(wantGen)},
	}
	for _, c := range checks {
		if got := value(c.name); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
	if st.GenerationTokens != int64(wantGen) || st.TokenEvents != int64(wantGen) || st.TTFT.Count != 6 {
		t.Errorf("Stats %+v", st)
	}
	h := fams["vllm:e2e_request_latency_seconds"].Metric[0].Histogram
	if math.Abs(h.GetSampleSum()-st.E2E.Sum.Seconds()) > 1e-6 {
		t.Errorf("e2e sum %v, Stats %v", h.GetSampleSum(), st.E2E.Sum)
	}
	if v := value("vllm:kv_cache_usage_perc"); v < 0 || v > 1 {
		t.Errorf("kv_cache_usage_perc %v", v)
	}
}
