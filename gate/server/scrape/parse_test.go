package scrape

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) Snapshot {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return s
}

func TestParseCurrentNames(t *testing.T) {
	s := parseFile(t, "v1.txt")
	wantC := map[string]float64{
		"vllm:num_preemptions_total":      5, // two engines add up
		"vllm:prompt_tokens_total":        100000,
		"vllm:generation_tokens_total":    30000,
		"vllm:prefix_cache_queries_total": 100000,
		"vllm:prefix_cache_hits_total":    25000,
		"vllm:request_success_total":      100, // finish reasons add up
	}
	if !reflect.DeepEqual(s.Counters, wantC) {
		t.Errorf("counters = %v\nwant %v", s.Counters, wantC)
	}
	wantG := map[string]float64{
		"vllm:num_requests_running": 22,
		"vllm:num_requests_waiting": 4,
		"vllm:kv_cache_usage_perc":  0.61, // the fullest engine
	}
	if !reflect.DeepEqual(s.Gauges, wantG) {
		t.Errorf("gauges = %v\nwant %v", s.Gauges, wantG)
	}
	wantH := map[string]Hist{
		"vllm:time_to_first_token_seconds": {12.5, 100},
		"vllm:inter_token_latency_seconds": {448.5, 29900},
		"vllm:request_queue_time_seconds":  {2, 100},
		"vllm:e2e_request_latency_seconds": {480, 100},
	}
	if !reflect.DeepEqual(s.Histograms, wantH) {
		t.Errorf("histograms = %v\nwant %v", s.Histograms, wantH)
	}
}

// TestParseSGLangNames: SGLang's series are read under the canonical
// names the report's server context uses (gate/engine maps them), and its
// hit-rate gauge stands in for vLLM's counters.
func TestParseSGLangNames(t *testing.T) {
	s := parseFile(t, "sglang.txt")
	wantC := map[string]float64{"vllm:prompt_tokens_total": 51200, "vllm:generation_tokens_total": 12800}
	wantG := map[string]float64{"vllm:num_requests_running": 7, "vllm:num_requests_waiting": 2, "vllm:kv_cache_usage_perc": 0.35, "cache_hit_rate": 0.25}
	wantH := map[string]Hist{
		"vllm:time_to_first_token_seconds": {4.5, 50},
		"vllm:inter_token_latency_seconds": {127.5, 12750},
		"vllm:e2e_request_latency_seconds": {130, 50},
	}
	if !reflect.DeepEqual(s.Counters, wantC) || !reflect.DeepEqual(s.Gauges, wantG) || !reflect.DeepEqual(s.Histograms, wantH) {
		t.Errorf("snapshot = %+v", s)
	}
	before := Snapshot{Counters: map[string]float64{"vllm:prompt_tokens_total": 1200, "vllm:generation_tokens_total": 800},
		Histograms: map[string]Hist{"vllm:time_to_first_token_seconds": {0.5, 10}}}
	out, warns := Summarize(before, s, []Snapshot{s})
	for k, want := range map[string]float64{
		"vllm:prompt_tokens_total.delta": 50000, "num_requests_running.mean": 7, "num_requests_waiting.mean": 2,
		"kv_cache_usage_perc.max": 0.35, "prefix_cache_hit_rate": 0.25, "ttft_s.server_mean": 0.1,
	} {
		if got, ok := out[k]; !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, want)
		}
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
}

func TestParseOldNames(t *testing.T) {
	s := parseFile(t, "v0.txt")
	if s.Gauges["vllm:kv_cache_usage_perc"] != 0.3 {
		t.Errorf("gpu_cache_usage_perc not read as kv_cache_usage_perc: %v", s.Gauges)
	}
	if s.Counters["vllm:prefix_cache_queries_total"] != 800 || s.Counters["vllm:prefix_cache_hits_total"] != 200 {
		t.Errorf("gpu_prefix_cache_* not read: %v", s.Counters)
	}
	if s.Counters["vllm:prompt_tokens_total"] != 5000 {
		t.Errorf("untyped counter not read: %v", s.Counters)
	}
	if h := s.Histograms["vllm:inter_token_latency_seconds"]; h != (Hist{25, 1000}) {
		t.Errorf("time_per_output_token_seconds not read as ITL: %v", s.Histograms)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"vllm:num_requests_running{model_name=\"m\" 3\n",
		"# TYPE x gauge\n# TYPE x counter\nx 1\n",
		"vllm:num_requests_running abc\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "/metrics") {
			t.Errorf("Parse(%q) error = %v", in, err)
		}
	}
	s, err := Parse(strings.NewReader(""))
	if err != nil || len(s.Counters)+len(s.Gauges)+len(s.Histograms) != 0 {
		t.Errorf("empty exposition: %v, %v", s, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"v1.txt", "v0.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("vllm:kv_cache_usage_perc NaN\nvllm:num_preemptions_total +Inf\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		out, _ := Summarize(s, s, []Snapshot{s})
		for k, v := range out {
			if v != v || v < 0 {
				t.Fatalf("Summarize produced %s = %v", k, v)
			}
		}
	})
}

// BenchmarkParse measures one parse of a vLLM /metrics page (two engines,
// every series the hook reads plus unrelated ones): the hook parses one
// per gauge sample, about once a second, on the load generator's machine.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "v1.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(string(data))); err != nil {
			b.Fatal(err)
		}
	}
}
