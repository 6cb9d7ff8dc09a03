package vllmbench

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustParse(t *testing.T, name string) *Bench {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(name, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return b
}

func TestParseFiles(t *testing.T) {
	tests := []struct {
		file string
		want map[string]float64 // ids that must be present with these values
		// absent ids must not be in Values.
		absent     []string
		rate       float64
		conc       int
		completed  int
		failed     int
		errors     int
		noteSubstr string
		meta       map[string]string
	}{
		{
			// Current vLLM: failed present, "inf" as a string, metadata
			// keys, p99.9, std NaN (Python json) dropped with a note.
			file: "new.json",
			want: map[string]float64{
				"ttft_ms.mean": 120.5, "ttft_ms.median": 110.25, "ttft_ms.p50": 110.25, "ttft_ms.p95": 170,
				"itl_ms.p99.9": 40, "e2el_ms.p99": 5600, "tpot_ms.p50": 15,
				"request_goodput": 2.9, "failed": 1, "completed": 63, "duration_s": 20,
				"max_output_tokens_per_s": 1100, "max_concurrent_requests": 16,
			},
			absent:     []string{"tpot_ms.std"},
			rate:       math.Inf(1),
			conc:       16,
			completed:  63,
			failed:     1,
			errors:     1,
			noteSubstr: `"std_tpot_ms" is NaN`,
			meta:       map[string]string{"gpu": "H100 80GB", "nccl": "p2p-on"},
		},
		{
			// Old benchmark_serving.py: no "failed" (inferred from
			// num_prompts), Infinity literal, "request_goodput:" null,
			// per-request arrays, only p99.
			file: "old.json",
			want: map[string]float64{
				"ttft_ms.p99": 1500, "ttft_ms.p50": 850, "itl_ms.mean": 39.5, "failed": 2, "completed": 98,
			},
			absent:     []string{"request_goodput", "max_output_tokens_per_s", "e2el_ms.mean"},
			rate:       math.Inf(1),
			completed:  98,
			failed:     2,
			errors:     1,
			noteSubstr: "inferred 2 failed",
			meta:       map[string]string{},
		},
		{
			// Only mean and p95 of two metrics, a finite rate, null goodput.
			file:      "partial.json",
			want:      map[string]float64{"ttft_ms.mean": 50, "ttft_ms.p95": 80, "e2el_ms.p95": 1200},
			absent:    []string{"ttft_ms.median", "ttft_ms.p50", "tpot_ms.mean", "request_goodput"},
			rate:      2.5,
			completed: 10,
			meta:      map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b := mustParse(t, tt.file)
			for id, want := range tt.want {
				if got, ok := b.Values[id]; !ok || got != want {
					t.Errorf("Values[%s] = %v (present %v), want %v", id, got, ok, want)
				}
			}
			for _, id := range tt.absent {
				if v, ok := b.Values[id]; ok {
					t.Errorf("Values[%s] = %v, want absent", id, v)
				}
			}
			if b.Rate != tt.rate || b.MaxConcurrency != tt.conc {
				t.Errorf("rate, concurrency = %v, %d; want %v, %d", b.Rate, b.MaxConcurrency, tt.rate, tt.conc)
			}
			if b.Completed != tt.completed || b.Failed != tt.failed || b.Errors != tt.errors {
				t.Errorf("completed, failed, errors = %d, %d, %d; want %d, %d, %d",
					b.Completed, b.Failed, b.Errors, tt.completed, tt.failed, tt.errors)
			}
			if tt.noteSubstr != "" && !strings.Contains(strings.Join(b.Notes, "\n"), tt.noteSubstr) {
				t.Errorf("notes %q lack %q", b.Notes, tt.noteSubstr)
			}
			if len(b.Meta) != len(tt.meta) {
				t.Errorf("meta = %v, want %v", b.Meta, tt.meta)
			}
			for k, v := range tt.meta {
				if b.Meta[k] != v {
					t.Errorf("meta[%s] = %q, want %q", k, b.Meta[k], v)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "empty file"},
		{"array", "[1,2]", "line 1"},
		{"syntax", "{\n\"completed\": 1,\n\"duration\": ,\n}", "x.json: line 3"},
		{"not vllm", `{"schema": "perfgate.result/v1"}`, `no "completed" key`},
		{"no duration", `{"completed": 3}`, `no "duration" key`},
		{"bad date", `{"completed": 3, "duration": 1, "date": "2026-03-15"}`, `"date" "2026-03-15"`},
		{"zero rate", `{"completed": 3, "duration": 1, "request_rate": 0}`, "not a positive rate"},
		{"trailing", `{"completed": 3, "duration": 1} {}`, "unexpected data"},
		{"null", `null`, "expected a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.json", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestRewriteLiterals(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": NaN}`, `{"a": "NaN"}`},
		{`{"a": -Infinity, "b":Infinity}`, `{"a": "-Infinity", "b":"Infinity"}`},
		// Inside strings, including after escaped quotes, nothing changes.
		{`{"a": "NaN \" Infinity"}`, `{"a": "NaN \" Infinity"}`},
		{`{"a": [NaN,1]}`, `{"a": ["NaN",1]}`},
		// Not a bare token: left for the decoder to reject.
		{`{"a": NaNx}`, `{"a": NaNx}`},
	}
	for _, tt := range tests {
		if got := string(rewriteLiterals([]byte(tt.in))); got != tt.want {
			t.Errorf("rewriteLiterals(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, s := range []string{"inf", "Infinity", "+inf"} {
		if f, ok := number(s); !ok || !math.IsInf(f, 1) {
			t.Errorf("number(%q) = %v, %v; want +Inf", s, f, ok)
		}
	}
	if _, ok := number("fast"); ok {
		t.Error(`number("fast") accepted`)
	}
	if _, ok := number(true); ok {
		t.Error("number(true) accepted")
	}
}

// FuzzImport checks that no input crashes Parse and that whatever Parse
// accepts imports into a valid result and exports.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"new.json", "old.json", "partial.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"completed": 1, "duration": 1e999, "request_rate": -Infinity}`))
	f.Add([]byte(`{"completed": -4, "duration": 2, "failed": "x", "p101_ttft_ms": 3}`))
	f.Add([]byte(`{"completed": 2, "duration": 1, "burstiness": Infinity, "request_rate": "inf", "mean_ttft_ms": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse("f.json", data)
		if err != nil {
			return
		}
		r, err := Import([]*Bench{b}, Options{Cell: "c"})
		if err != nil {
			t.Fatalf("Import of a parsed file: %v", err)
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("imported result invalid: %v", err)
		}
		if r.Trials[0].Valid {
			if _, _, err := Export(r); err != nil {
				t.Fatalf("Export: %v", err)
			}
		}
	})
}

// BenchmarkParse measures parsing one --save-result file with its
// per-request arrays (--save-detailed, 1000 requests), the large case.
func BenchmarkParse(b *testing.B) {
	base, err := os.ReadFile(filepath.Join("testdata", "new.json"))
	if err != nil {
		b.Fatal(err)
	}
	var arr strings.Builder
	arr.WriteString(`"ttfts": [`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			arr.WriteByte(',')
		}
		arr.WriteString("0.1234, NaN")
	}
	arr.WriteString(`],`)
	data := []byte(strings.Replace(string(base), "{", "{\n"+arr.String(), 1))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("bench.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
