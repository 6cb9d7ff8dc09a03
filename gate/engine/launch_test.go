package engine

import (
	"strings"
	"testing"
)

// TestLaunch reads the engine, model and GPU count from launch commands
// of each engine's documented shape.
func TestLaunch(t *testing.T) {
	for _, tc := range []struct {
		argv  string
		want  Name
		model string
		gpus  int
	}{
		{"vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4", VLLM, "Qwen/Qwen3-8B", 4},
		{"vllm serve Qwen/Qwen3-8B -tp 2 --data-parallel-size 2", VLLM, "Qwen/Qwen3-8B", 4},
		{"vllm serve --model m", VLLM, "m", 1},
		{"python -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size=8", VLLM, "m", 8},
		{"python3 -m sglang.launch_server --model-path Qwen/Qwen3-235B --tp-size 8", SGLang, "Qwen/Qwen3-235B", 8},
		{"/usr/bin/python3.11 -m sglang.launch_server --model-path m --tp 2 --dp 2", SGLang, "m", 4},
		{"env CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --model-path m --tp-size 2", SGLang, "m", 2},
		{"VLLM_SERVER_DEV_MODE=1 vllm serve m", VLLM, "m", 1},
		{"llama-server -m model.gguf --port 8080", LlamaCpp, "model.gguf", 0},
		{"text-generation-launcher --model-id bigscience/bloom --num-shard 4", TGI, "bigscience/bloom", 4},
		{"ollama serve", Ollama, "", 0},
		{"./start-server.sh", "", "", 0},
		{"vllm serve m --tensor-parallel-size two", VLLM, "m", 0},
	} {
		argv := strings.Fields(tc.argv)
		got, ok := FromArgv(argv)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("FromArgv(%s) = %q %v, want %q", tc.argv, got, ok, tc.want)
			continue
		}
		if !ok {
			continue
		}
		l := Must(got).Launch
		if m := l.Model(argv); m != tc.model {
			t.Errorf("%s: model %q, want %q", tc.argv, m, tc.model)
		}
		if g := l.GPUs(argv); g != tc.gpus {
			t.Errorf("%s: gpus %d, want %d", tc.argv, g, tc.gpus)
		}
	}
}
