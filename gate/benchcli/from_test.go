package benchcli

import (
	"errors"
	"strings"
	"testing"
)

func TestFromVLLMFlags(t *testing.T) {
	line := []string{"vllm", "bench", "serve", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--model", "m",
		"--dataset-name", "prefix_repetition", "--prefix-repetition-prefix-len", "512", "--prefix-repetition-suffix-len", "128",
		"--prefix-repetition-num-prefixes", "4", "--prefix-repetition-output-len", "64", "--seed", "7",
		"--num-prompts", "40", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "8",
		"--top-p", "0.9", "--temperature=0.5", "--goodput", "ttft:500", "tpot:50", "--metric-percentiles", "25,75",
		"--extra-body", `{"b":1,"a":"x"}`, "--header", "X-Team=perf", "Authorization=Bearer sk-abcdefghijklmnopqrstuvwx",
		"--base-url", "http://h:8000", "--save-result", "--use-beam-search", "--logprobs", "5", "--num-warmups", "3"}
	tr, err := FromVLLM(line, Options{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"api: chat", "model: m", "kind: prefix-repetition", "prefix_tokens: 512", "num_prefixes: 4", "input_tokens: 128",
		"output_tokens: 64", "seed: 7", "requests: 40", "ramp_up: {strategy: linear, start_rps: 1, end_rps: 8}", `model: m`,
		"sampling: {temperature: 0.5, top_p: 0.9, ignore_eos: false}", "slo: {ttft_ms: 500, tpot_ms: 50}", "metric_percentiles: [25, 75]",
		`extra_body: {"a":"x","b":1}`, `X-Team: "perf"`, "Authorization: {env: AUTHORIZATION}", "warmups: 3"} {
		if !strings.Contains(tr.YAML, want) {
			t.Errorf("YAML lacks %q:\n%s", want, tr.YAML)
		}
	}
	if strings.Contains(tr.YAML, "sk-abc") {
		t.Errorf("a secret reached the file:\n%s", tr.YAML)
	}
	if strings.Join(tr.Ignored, " ") != "--base-url --save-result" {
		t.Errorf("ignored %q", tr.Ignored)
	}
	if u := strings.Join(tr.Unsupported, "\n"); !strings.Contains(u, "--use-beam-search") || !strings.Contains(u, "--logprobs") {
		t.Errorf("unsupported %q", tr.Unsupported)
	}
	if n := strings.Join(tr.Notes, "\n"); !strings.Contains(n, "AUTHORIZATION") {
		t.Errorf("notes %q", tr.Notes)
	}
}

func TestFromVLLMErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"vllm bench throughput --num-prompts 3", "want `vllm bench serve"},
		{"vllm bench serve --num-prompts", "--num-prompts: missing value"},
		{"vllm bench serve --num-prompts many", `--num-prompts "many"`},
		{"vllm bench serve --request-rate fast", `--request-rate "fast"`},
		{"vllm bench serve --dataset-name sonnet", "--dataset-name sonnet"},
		{"vllm bench serve --dataset-name sharegpt", "needs --dataset-path"},
		{"vllm bench serve --goodput ttft", "--goodput ttft"},
		{"vllm bench serve --extra-body [1]", "--extra-body"},
		{"vllm bench serve --endpoint /v1/embeddings", "--endpoint /v1/embeddings"},
		{"vllm bench serve stray", "arguments come as --flags"},
		{"vllm bench serve --seed 1 stray", `argument "stray"`},
	} {
		_, err := FromVLLM(strings.Fields(tc.line), Options{Name: "w"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.want)
		}
	}
	_, err := FromVLLM([]string{"vllm", "bench", "serve", "--dataset-name", "sharegpt", "--dataset-path", "x.json"},
		Options{Name: "w", SHA256: func(string) (string, error) { return "", errors.New("no such file") }})
	if err == nil || !strings.Contains(err.Error(), "--dataset-path x.json: no such file") {
		t.Errorf("unreadable dataset: %v", err)
	}
}

// TestFromVLLMCommentIsSafe: the header comment cannot be escaped by a
// line break in an argument, and holds no secret.
func TestFromVLLMCommentIsSafe(t *testing.T) {
	tr, err := FromVLLM([]string{"vllm", "bench", "serve", "--label", "x\nname: evil", "--header", "X-Api-Key=k3y-value-123"}, Options{Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tr.YAML, "\nname: evil") || strings.Contains(tr.YAML, "k3y-value-123") {
		t.Errorf("unsafe file:\n%s", tr.YAML)
	}
}

func FuzzFromVLLM(f *testing.F) {
	for _, s := range studyLines {
		f.Add(s.line)
	}
	f.Add("vllm bench serve --header A=1 B=2 --goodput ttft:1 --extra-body {} --ramp-up-strategy exponential")
	f.Fuzz(func(t *testing.T, line string) {
		tr, err := FromVLLM(strings.Fields(line), Options{Name: "w"})
		if err != nil {
			return
		}
		for _, l := range strings.Split(strings.TrimSuffix(tr.YAML, "\n"), "\n") {
			if strings.HasPrefix(l, "#") || strings.Contains(l, ":") {
				continue
			}
			t.Fatalf("line %q is neither a comment nor a key:\n%s", l, tr.YAML)
		}
	})
}
