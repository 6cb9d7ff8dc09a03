package benchcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// hashOf expands a workload file's text and returns its cells' hashes.
func hashOf(t *testing.T, yaml string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := workload.LoadPaths([]string{path})
	if err != nil {
		t.Fatalf("the written workload is invalid: %v\n%s", err, yaml)
	}
	var hs []string
	for _, m := range ms {
		hs = append(hs, m.Hash)
	}
	return hs
}

// studyLines are the seed studies' `vllm bench serve` command lines (as
// the studies describe their runs: the model, dataset, lengths, seed,
// prompts and load of each shipped workload, in the flag spelling a
// runbook has) and the workload file each must reproduce.
var studyLines = []struct {
	file string
	line string
}{
	{"cx8-1000-300-c6.yaml", "vllm bench serve --model Qwen/Qwen3-235B-A22B-FP4 --dataset-name random --random-input-len 1000 --random-output-len 300 --random-range-ratio 0 --seed 42 --num-prompts 64 --max-concurrency 6 --request-rate inf --ignore-eos --temperature 0 --save-result --result-dir results"},
	{"cx8-4000-1000-c16.yaml", "vllm bench serve --model Qwen/Qwen3-235B-A22B-FP4 --dataset-name random --random-input-len 4000 --random-output-len 1000 --seed 42 --num-prompts 64 --max-concurrency 16 --ignore-eos"},
	{"a100-32000-100.yaml", "vllm bench serve --model Qwen/Qwen3-235B-A22B --dataset-name random --random-input-len 32000 --random-output-len 100 --num-prompts 100 --seed 42 --ignore-eos --percentile-metrics ttft,tpot,itl,e2el"},
	{"a100-4000-200.yaml", "vllm bench serve --model Qwen/Qwen3-235B-A22B --dataset-name random --random-input-len 4000 --random-output-len 200 --num-prompts 500 --seed 42 --ignore-eos"},
	{"a100-2000-100.yaml", "vllm bench serve --model Qwen/Qwen3-235B-A22B --dataset-name random --random-input-len 2000 --random-output-len 100 --num-prompts 500 --seed 42 --ignore-eos"},
	{"a100-128-4.yaml", "vllm bench serve --model Qwen/Qwen3-235B-A22B --dataset-name random --random-input-len 128 --random-output-len 4 --num-prompts 1000 --seed 42 --ignore-eos"},
	{"h100-1024-128-r1000.yaml", "vllm bench serve --model Qwen/Qwen3.5-9B --dataset-name random --random-input-len 1024 --random-output-len 128 --num-prompts 1000 --request-rate 1000 --burstiness 1 --seed 42 --ignore-eos"},
	{"h100-32000-100-r1.yaml", "vllm bench serve --model Qwen/Qwen3.5-9B --dataset-name random --random-input-len 32000 --random-output-len 100 --num-prompts 100 --request-rate 1 --seed 42 --ignore-eos"},
	{"h100-1000-2000-r1.yaml", "vllm bench serve --model Qwen/Qwen3.5-9B --dataset-name random --random-input-len 1000 --random-output-len 2000 --num-prompts 200 --request-rate 1 --seed 42 --ignore-eos"},
	{"q7b-512-256-r10.yaml", "vllm bench serve --model Qwen/Qwen2.5-7B-Instruct --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 500 --request-rate 10 --seed 42 --ignore-eos"},
	{"q7b-512-256-r2.yaml", "vllm bench serve --model Qwen/Qwen2.5-7B-Instruct --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 500 --request-rate 2 --seed 42 --ignore-eos"},
	{"q7b-512-256-c32.yaml", "vllm bench serve --model Qwen/Qwen2.5-7B-Instruct --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 500 --max-concurrency 32 --seed 42 --ignore-eos --goodput ttft:3000 e2el:30000"},
	{"q7b-512-256-c64.yaml", "vllm bench serve --model Qwen/Qwen2.5-7B-Instruct --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 500 --max-concurrency 64 --seed 42 --ignore-eos --goodput ttft:3000 e2el:30000"},
}

// TestStudyLinesRoundTrip: each seed study's command line becomes a
// workload with the shipped workload's hash (the model left out, as the
// shipped workloads leave it), and the shipped workload's cell written
// back with ToVLLM and read again keeps the hash.
func TestStudyLinesRoundTrip(t *testing.T) {
	for _, tc := range studyLines {
		t.Run(tc.file, func(t *testing.T) {
			ms, err := workload.LoadPaths([]string{filepath.Join("../../workloads", tc.file)})
			if err != nil {
				t.Fatal(err)
			}
			want := ms[0].Hash
			tr, err := FromVLLM(strings.Fields(tc.line), Options{Name: ms[0].Name, NoModel: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := hashOf(t, tr.YAML); len(got) != 1 || got[0] != want {
				t.Errorf("from-cli hash %v, shipped %.12s\n%s", got, want, tr.YAML)
			}
			var spec result.Spec
			if err := spec.UnmarshalJSON(ms[0].Spec); err != nil {
				t.Fatal(err)
			}
			argv, _, err := ToVLLM(spec)
			if err != nil {
				t.Fatal(err)
			}
			back, err := FromVLLM(argv, Options{Name: ms[0].Name})
			if err != nil {
				t.Fatalf("%v\n%s", err, ShellLine(argv))
			}
			if got := hashOf(t, back.YAML); len(got) != 1 || got[0] != want {
				t.Errorf("plan --as-vllm-cli then from-cli: hash %v, shipped %.12s\n%s\n%s", got, want, ShellLine(argv), back.YAML)
			}
		})
	}
}
