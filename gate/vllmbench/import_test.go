package vllmbench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

var update = flag.Bool("update", false, "rewrite golden files")

// machine returns a copy of new.json as if run on another machine: other
// date, metadata and latencies, same benchmark.
func machine(t *testing.T, name string, meta string, ttft float64) *Bench {
	b := mustParse(t, "new.json")
	b.Name = name
	b.Meta = map[string]string{"gpu": meta}
	b.Values["ttft_ms.mean"] = ttft
	b.Date = b.Date.Add(time.Hour)
	return b
}

func TestImportIdentity(t *testing.T) {
	opts := Options{Cell: "qwen"}
	a, err := Import([]*Bench{mustParse(t, "new.json")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The same benchmark on another machine, with other metadata, compares.
	b, err := Import([]*Bench{machine(t, "b.json", "A100", 300)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a.Workload.Hash != b.Workload.Hash {
		t.Errorf("same benchmark on two machines: hashes differ")
	}
	if a.Fingerprint["meta.gpu"] == b.Fingerprint["meta.gpu"] {
		t.Errorf("metadata not recorded in the fingerprint: %v", a.Fingerprint)
	}
	// Any change of load or lengths is another benchmark.
	changes := map[string]func(*Bench){
		"concurrency": func(b *Bench) { b.MaxConcurrency = 32 },
		"rate":        func(b *Bench) { b.Rate = 10 },
		"prompts":     func(b *Bench) { b.NumPrompts = 65 },
		"burstiness":  func(b *Bench) { b.Burstiness = 0.5 },
		"input len":   func(b *Bench) { b.Values["total_input_tokens"] = 63 * 4000 },
		"output len":  func(b *Bench) { b.Values["total_output_tokens"] = 63 * 1000 },
	}
	for name, change := range changes {
		c := mustParse(t, "new.json")
		change(c)
		r, err := Import([]*Bench{c}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Workload.Hash == a.Workload.Hash {
			t.Errorf("%s changed but the hash did not", name)
		}
	}
}

func TestImportResult(t *testing.T) {
	r, err := Import([]*Bench{mustParse(t, "new.json"), machine(t, "second.json", "H100 80GB", 130)}, Options{Cell: "qwen", GPUs: 4, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trials) != 2 || r.Source != Source || !r.Complete || r.Server.GPUs != 4 {
		t.Fatalf("result = %+v", r)
	}
	tr := r.Trials[0]
	checks := map[string]float64{
		"qpm": 60 * 3.15, "tpm": 60 * 4095, "success_rate": 63.0 / 64,
		"output_throughput_per_gpu": 945.0 / 4, "total_token_throughput_per_gpu": 4095.0 / 4,
		"goodput_ratio": 58.0 / 64, // round(2.9 req/s x 20 s) good of 64
	}
	for id, want := range checks {
		if got := tr.Values[id]; !close(got, want) {
			t.Errorf("%s = %v, want %v", id, got, want)
		}
	}
	if tr.Errors["vllm_bench"] != 1 || tr.ErrorSamples["vllm_bench"] != "Server disconnected" {
		t.Errorf("errors = %v %v", tr.Errors, tr.ErrorSamples)
	}
	if r.Fingerprint["server.model"] != "Qwen/Qwen3-8B" || r.Fingerprint["bench.backend"] != "vllm" {
		t.Errorf("fingerprint = %v", r.Fingerprint)
	}
	wantStart := time.Date(2026, 3, 15, 10, 14, 40, 0, time.UTC)
	if !r.StartedAt.Equal(wantStart) || !r.FinishedAt.Equal(wantStart.Add(time.Hour+20*time.Second)) {
		t.Errorf("started, finished = %v, %v", r.StartedAt, r.FinishedAt)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), `second.json: metadata "nccl" is "", new.json has "p2p-on"`) {
		t.Errorf("the second file lacks meta nccl but no note: %q", r.Notes)
	}
}

func close(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestImportMismatch(t *testing.T) {
	_, err := Import([]*Bench{mustParse(t, "new.json"), mustParse(t, "partial.json")}, Options{Cell: "x"})
	if err == nil || !strings.Contains(err.Error(), "new.json and partial.json are different benchmarks: num_prompts 64 vs 10") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Import(nil, Options{Cell: "x"}); err == nil {
		t.Error("Import of nothing succeeded")
	}
	if _, err := Import([]*Bench{mustParse(t, "new.json")}, Options{}); err == nil {
		t.Error("Import without a cell name succeeded")
	}
}

func TestInvalidTrial(t *testing.T) {
	b, err := Parse("zero.json", []byte(`{"completed": 0, "failed": 5, "duration": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Import([]*Bench{b}, Options{Cell: "z"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Trials[0].Valid || r.Trials[0].Values["success_rate"] != 0 {
		t.Errorf("trial with no successes: %+v", r.Trials[0])
	}
	if _, _, err := Export(r); err == nil {
		t.Error("Export of a result without valid trials succeeded")
	}
}

// TestRoundTrip exports imported files and imports them again: every value,
// the identity and the metadata survive.
func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"new.json", "old.json", "partial.json"} {
		t.Run(name, func(t *testing.T) {
			orig, err := Import([]*Bench{mustParse(t, name)}, Options{Cell: "rt", GPUs: 2})
			if err != nil {
				t.Fatal(err)
			}
			files, skipped, err := Export(orig)
			if err != nil || len(files) != 1 || len(skipped) != 0 {
				t.Fatalf("Export: %v files, skipped %v, err %v", len(files), skipped, err)
			}
			dir := t.TempDir()
			paths, err := WriteDir(dir, files)
			if err != nil {
				t.Fatal(err)
			}
			again, err := ImportFiles(paths, Options{Cell: "rt", GPUs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if again.Workload.Hash != orig.Workload.Hash {
				t.Errorf("hash changed: %s vs %s\n%s", again.Workload.Spec, orig.Workload.Spec, files[0].Data)
			}
			if !reflect.DeepEqual(again.Trials[0].Values, orig.Trials[0].Values) {
				t.Errorf("values changed:\n got %v\nwant %v", again.Trials[0].Values, orig.Trials[0].Values)
			}
			if !reflect.DeepEqual(again.Fingerprint, orig.Fingerprint) {
				t.Errorf("fingerprint changed:\n got %v\nwant %v", again.Fingerprint, orig.Fingerprint)
			}
		})
	}
}

// TestExportGolden pins the exported key set, order and units.
func TestExportGolden(t *testing.T) {
	r, err := Import([]*Bench{mustParse(t, "new.json")}, Options{Cell: "qwen@c16"})
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := Export(r)
	if err != nil {
		t.Fatal(err)
	}
	if files[0].Name != "qwen@c16-trial00.json" {
		t.Errorf("name = %s", files[0].Name)
	}
	golden := filepath.Join("testdata", "export.golden.json")
	if *update {
		if err := os.WriteFile(golden, files[0].Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files[0].Data, want) {
		t.Errorf("export differs from %s (run with -update):\n%s", golden, files[0].Data)
	}
}

// TestExportRunResult exports a result of a perfgate run, whose load
// parameters live in the workload spec's "load" block.
func TestExportRunResult(t *testing.T) {
	r := &result.Result{
		Schema:   result.Schema,
		Workload: result.Workload{Name: "chat", Cell: "chat@c8", Hash: "h", Spec: []byte(`{"name":"chat","api":"chat","load":{"requests":40,"concurrency":8,"rate":"inf","burstiness":1}}`)},
		Server:   result.Server{Model: "m"},
		Trials: []result.Trial{
			{Index: 0, Valid: false, InvalidReason: "server died", Values: map[string]float64{}},
			{Index: 1, Valid: true, DurationS: 2, Completed: 40, Values: map[string]float64{
				"ttft_ms.mean": 10, "ttft_ms.min": 1, "itl_token_ms.mean": 3, "request_throughput": 20, "duration_s": 2,
			}},
		},
	}
	files, skipped, err := Export(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !reflect.DeepEqual(skipped, []int{0}) || files[0].Name != "chat@c8-trial01.json" {
		t.Fatalf("files %d skipped %v", len(files), skipped)
	}
	b, err := Parse("x", files[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if b.NumPrompts != 40 || b.MaxConcurrency != 8 || b.Endpoint != "openai-chat" || b.Backend != "perfgate" || b.Tokenizer != "m" {
		t.Errorf("exported header: %+v\n%s", b, files[0].Data)
	}
	if _, ok := b.Values["ttft_ms.min"]; ok || b.Values["ttft_ms.mean"] != 10 {
		t.Errorf("exported values: %v", b.Values)
	}
}
