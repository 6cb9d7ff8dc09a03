package importers

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
)

func TestParseProfileExport(t *testing.T) {
	for _, tc := range []struct {
		file, tool string
		itl        bool
	}{
		{"testdata/aiperf/1-profile_export_aiperf.json", AIPerf, true},
		{"testdata/genai-perf/run-1/profile_export_genai_perf.json", GenAIPerf, false},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			runs, err := ParseProfileExport(tc.file, readFixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			r := runs[0]
			if r.Tool != tc.tool || r.Model != "Qwen/Qwen3-8B" || r.Completed != 200 || r.Label != "c16" {
				t.Errorf("tool %s model %q completed %d label %q", r.Tool, r.Model, r.Completed, r.Label)
			}
			s := r.Shape
			if s.NumPrompts != 200 || s.MaxConcurrency != 16 || !math.IsInf(s.RequestRate, 1) || s.MeanInputLen != 512 || s.MeanOutputLen != 128 || s.EndpointType != "completions" {
				t.Errorf("shape %+v", s)
			}
			if x := r.Values["ttft_ms.p50"]; x != 40 || r.Values["ttft_ms.median"] != 40 {
				t.Errorf("ttft p50 %v median %v", x, r.Values["ttft_ms.median"])
			}
			if _, ok := r.Values["itl_ms.p99"]; ok != tc.itl {
				t.Errorf("itl_ms.p99 present %v, want %v", ok, tc.itl)
			}
			if x := r.Values["tpot_ms.mean"]; !(x > 9 && x < 9.2) {
				t.Errorf("tpot_ms.mean %v (inter_token_latency)", x)
			}
			for id := range r.Values {
				if _, ok := metrics.Lookup(id); !ok {
					t.Errorf("%s is no perfgate id", id)
				}
			}
			if tc.tool == AIPerf && !(r.DurationS > 11 && r.DurationS < 13) {
				t.Errorf("duration %v s (benchmark_duration in sec)", r.DurationS)
			}
		})
	}
}

func TestParseProfileExportErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"benchmarks": []}`, "not a GenAI-Perf or AIPerf profile export"},
		{`{"request_latency": {"unit": "fortnights", "avg": 1}, "request_count": {"avg": 1}}`, `time unit "fortnights"`},
		{`{"request_latency": {"unit": "ms", "avg": 1}, "request_count": {"avg": 1.5}}`, "request_count.avg"},
		{"{\n\"request_latency\": ,\n}", "line 2"},
	} {
		_, err := ParseProfileExport("p.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%s: error %v, want one naming p.json and %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseProfileExport(f *testing.F) {
	f.Add(readFixture(f, "testdata/aiperf/1-profile_export_aiperf.json"))
	f.Add(readFixture(f, "testdata/genai-perf/run-1/profile_export_genai_perf.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ParseProfileExport("f", data)
		if err != nil {
			return
		}
		if _, err := Build(runs, Options{Name: "x"}); err != nil {
			t.Fatalf("Build of parsed runs: %v", err)
		}
	})
}

// TestGenAIPerfRawExport: the raw per-request export beside a GenAI-Perf
// summary is kept, counts a request without responses as failed in the
// records, and gives ITL from the chunk gaps.
func TestGenAIPerfRawExport(t *testing.T) {
	dir := "testdata/genai-perf/run-raw/"
	runs, err := ParseProfileExportWithRaw(dir+"profile_export_genai_perf.json", readFixture(t, dir+"profile_export_genai_perf.json"),
		dir+"profile_export.json", readFixture(t, dir+"profile_export.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	failed := 0
	for _, q := range r.Requests {
		if !q.Success {
			failed++
		}
	}
	if len(r.Requests) != 16 || failed != 1 {
		t.Errorf("%d records, %d failed; want 16 and 1", len(r.Requests), failed)
	}
	if x := r.Values["itl_ms.p50"]; !(x > 8 && x < 10.5) {
		t.Errorf("itl_ms.p50 %v from the chunk gaps", x)
	}
	for _, id := range r.Lacks {
		if id == "itl_ms" {
			t.Error("itl_ms still listed as lacking")
		}
	}
	for _, tc := range []struct{ raw, want string }{
		{`{"experiments": []}`, "no experiments"},
		{`{"experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [4]}]}]}`, "response_timestamps[0]"},
		{`{"experiments": [{"requests": [{}]}]}`, "no timestamp"},
	} {
		_, err := ParseProfileExportWithRaw("s.json", readFixture(t, dir+"profile_export_genai_perf.json"), "raw.json", []byte(tc.raw))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "raw.json") {
			t.Errorf("%s: %v", tc.raw, err)
		}
	}
}

func FuzzPerfAnalyzerRaw(f *testing.F) {
	f.Add(readFixture(f, "testdata/genai-perf/run-raw/profile_export.json"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		reqs, gaps, err := perfAnalyzerRequests("f", raw)
		if err != nil {
			return
		}
		for _, g := range gaps {
			if g < 0 {
				t.Fatalf("negative gap %v", g)
			}
		}
		for _, q := range reqs {
			if q.TTFTms < 0 || q.E2ELms < q.TTFTms {
				t.Fatalf("record %+v", q)
			}
		}
	})
}

// TestAIPerfRecords: AIPerf's per-request export beside a summary is
// kept: warmup and cancelled requests are not records of the run, a
// request with an error is a failed one.
func TestAIPerfRecords(t *testing.T) {
	dir := "testdata/aiperf/run-records/"
	runs, err := ParseProfileExportWithRaw(dir+"profile_export_aiperf.json", readFixture(t, dir+"profile_export_aiperf.json"),
		dir+"profile_export.jsonl", readFixture(t, dir+"profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	ok, failed := 0, 0
	for _, q := range r.Requests {
		if q.Success {
			ok++
			if !(q.TTFTms > 30 && q.E2ELms > 1000 && q.OutputTokens == 128) {
				t.Errorf("record %+v", q)
			}
		} else {
			failed++
		}
	}
	if ok != 14 || failed != 1 {
		t.Errorf("%d records and %d failed, want 14 and 1 (the warmup and the cancelled one left out)", ok, failed)
	}
	if r.Failed != 1 || r.ErrorSamples[AIPerf] != "engine overloaded" {
		t.Errorf("failed %d, samples %v", r.Failed, r.ErrorSamples)
	}
	if _, err := ParseProfileExportWithRaw("s", readFixture(t, dir+"profile_export_aiperf.json"), "r.jsonl", []byte("{\"metadata\": {}}\n{broken\n")); err == nil || !strings.Contains(err.Error(), "r.jsonl line 2") {
		t.Errorf("a broken line: %v", err)
	}
}

func FuzzAIPerfRecords(f *testing.F) {
	f.Add(readFixture(f, "testdata/aiperf/run-records/profile_export.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := aiperfRecords("f", data)
		if err == nil && len(recs) == 0 {
			t.Fatal("no records and no error")
		}
	})
}

// ParseProfileExport reads a GenAI-Perf profile_export_genai_perf.json or
// an AIPerf profile_export_aiperf.json: one run, its metrics as
// {"unit", "avg", "p50", ...} objects and its settings in input_config
// (GenAI-Perf's flat arguments, AIPerf's nested endpoint/loadgen/input).
func ParseProfileExport(name string, data []byte) ([]Run, error) {
	return ParseProfileExportWithRaw(name, data, "", nil)
}
