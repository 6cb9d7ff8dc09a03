package fingerprint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/redact"
)

// fakeSMI installs an nvidia-smi shell script on PATH that prints the query
// output for --query-gpu and a header with the CUDA version otherwise.
func fakeSMI(t *testing.T, csv string, exit int) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\n--query-gpu=" + gpuQuery + ")\n  [ \"$2\" = --format=csv,noheader,nounits ] || exit 9\n  cat <<'EOF'\n" + csv + "EOF\n  exit " + itoa(exit) + ";;\n*)\n  echo '| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |';;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func itoa(i int) string { return string(rune('0' + i)) }

func fakeProc(name string) ([]byte, error) {
	switch name {
	case "/proc/cpuinfo":
		return []byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 9654 96-Core Processor\n"), nil
	case "/proc/sys/kernel/osrelease":
		return []byte("6.8.0-45-generic\n"), nil
	}
	return nil, os.ErrNotExist
}

// TestCollectEngine: the engine is recorded as server.engine, a non-vLLM
// version as server.version (not vllm.version), and the tensor-parallel
// degree from SGLang's own flag.
func TestCollectEngine(t *testing.T) {
	fakeSMI(t, "", 0)
	fp, _ := Collect(context.Background(), Options{
		Environ: func() []string { return nil }, ReadFile: fakeProc,
		ServerArgv:    []string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-235B", "--tp-size", "8"},
		ServerVersion: "0.5.2", Engine: "sglang",
	})
	for k, want := range map[string]string{"server.engine": "sglang", "server.version": "0.5.2", "server.tensor_parallel_size": "8", VLLMVersion: ""} {
		if fp[k] != want {
			t.Errorf("%s = %q, want %q", k, fp[k], want)
		}
	}
	fp, _ = Collect(context.Background(), Options{Environ: func() []string { return nil }, ReadFile: fakeProc, ServerVersion: "0.11.0", Engine: "vllm"})
	if fp[VLLMVersion] != "0.11.0" || fp["server.version"] != "" || fp["server.engine"] != "vllm" {
		t.Errorf("vllm: %v", fp)
	}
}

func TestCollectWithFakeNvidiaSMI(t *testing.T) {
	fakeSMI(t, "NVIDIA H100 80GB HBM3, 550.54.15, 81559, 1980, 700.00\nNVIDIA H100 80GB HBM3, 550.54.15, 81559, 1980, 700.00\n", 0)
	env := []string{
		"NCCL_P2P_DISABLE=1", "VLLM_API_KEY=sk-very-secret", "CUDA_VISIBLE_DEVICES=0,1",
		"HOME=/root", "TORCH_CUDA_ARCH_LIST=9.0", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
		"HF_TOKEN=hf_abc", "NCCL_IB_HCA=mlx5", "VLLM_MAX_NUM_BATCHED_TOKENS=8192",
	}
	fp, notes := Collect(context.Background(), Options{
		Environ:       func() []string { return env },
		ServerEnv:     map[string]string{"NCCL_IB_HCA": "mlx5_0", "VLLM_ATTENTION_BACKEND": "FLASHINFER"},
		ReadFile:      fakeProc,
		ServerArgv:    []string{"vllm", "serve", "Qwen/Qwen3-8B", "--api-key", "sk-1", "--hf-token=hf_x", "--tensor-parallel-size", "2", "--max-num-batched-tokens", "8192"},
		ServerVersion: "0.11.0",
		Model:         "Qwen/Qwen3-8B",
	})
	if len(notes) != 0 {
		t.Errorf("notes = %q", notes)
	}
	want := map[string]string{
		GPUName: "NVIDIA H100 80GB HBM3", GPUCount: "2", GPUDriver: "550.54.15", GPUMemoryMiB: "81559",
		GPUMaxSMClock: "1980", GPUPowerLimit: "700.00", CUDAVersion: "12.4", VLLMVersion: "0.11.0",
		ServerModel: "Qwen/Qwen3-8B",
		ServerArgv:  "vllm serve Qwen/Qwen3-8B --api-key '[redacted]' '--hf-token=[redacted]' --tensor-parallel-size 2 --max-num-batched-tokens 8192",
		CPUModel:    "AMD EPYC 9654 96-Core Processor", Kernel: "6.8.0-45-generic",
		"env.NCCL_P2P_DISABLE": "1", "env.VLLM_API_KEY": redact.Placeholder, "env.CUDA_VISIBLE_DEVICES": "0,1",
		"env.TORCH_CUDA_ARCH_LIST": "9.0", "env.PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
		"env.NCCL_IB_HCA": "mlx5_0", "env.VLLM_MAX_NUM_BATCHED_TOKENS": "8192", "env.VLLM_ATTENTION_BACKEND": "FLASHINFER",
	}
	if !reflect.DeepEqual(fp, want) {
		for k := range merge(fp, want) {
			if fp[k] != want[k] {
				t.Errorf("%s = %q, want %q", k, fp[k], want[k])
			}
		}
	}
	for k, v := range fp {
		if strings.Contains(v, "secret") || strings.Contains(v, "sk-1") || strings.Contains(v, "hf_") {
			t.Errorf("secret leaked in %s = %q", k, v)
		}
	}
}

func merge(a, b map[string]string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

func TestCollectMixedAndFailingGPUs(t *testing.T) {
	fakeSMI(t, "NVIDIA A100-SXM4-80GB, 535.1, 81920, 1410, [N/A]\nNVIDIA A100-SXM4-40GB, 535.1, 40960, 1410, 400.00\n", 0)
	fp, _ := Collect(context.Background(), Options{ReadFile: fakeProc})
	if fp[GPUName] != "NVIDIA A100-SXM4-80GB; NVIDIA A100-SXM4-40GB" || fp[GPUMemoryMiB] != "81920; 40960" || fp[GPUPowerLimit] != "400.00" {
		t.Errorf("mixed GPUs: %v", fp)
	}

	// A failing nvidia-smi (no driver loaded) is a note, not a failure.
	fakeSMI(t, "NVIDIA-SMI has failed\n", 1)
	fp, notes := Collect(context.Background(), Options{ReadFile: fakeProc})
	if _, ok := fp[GPUName]; ok || len(notes) != 1 || !strings.Contains(notes[0], "nvidia-smi") {
		t.Errorf("failing nvidia-smi: fp %v notes %q", fp, notes)
	}
}

func TestCollectWithoutNvidiaSMI(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	noProc := func(string) ([]byte, error) { return nil, os.ErrNotExist }
	run := func(_ context.Context, name string, args ...string) ([]byte, error) {
		if name == "uname" {
			return []byte("6.1.0\n"), nil
		}
		return nil, &os.PathError{Op: "exec", Path: name, Err: errNotFoundForTest}
	}
	fp, notes := Collect(context.Background(), Options{Run: run, ReadFile: noProc, Environ: func() []string { return []string{"CUDA_VERSION=12.1.0"} }})
	want := map[string]string{Kernel: "6.1.0", CUDAVersion: "12.1.0", "env.CUDA_VERSION": "12.1.0"}
	if !reflect.DeepEqual(fp, want) {
		t.Errorf("fp = %v, want %v (notes %q)", fp, want, notes)
	}
}

var errNotFoundForTest = errors.New("not found")

// TestJoinRedactedArgv pins what the fingerprint's server.argv looks like
// (the secret rule itself is gate/redact's, tested there).
func TestJoinRedactedArgv(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"serve", "--api-key", "abc", "--port", "8000"}, "serve --api-key '[redacted]' --port 8000"},
		{[]string{"serve", "--port", "8000", "--api-key"}, "serve --port 8000 --api-key"},
		{[]string{"serve", "--max-num-batched-tokens", "8192", "--kv-cache-dtype", "fp8"}, "serve --max-num-batched-tokens 8192 --kv-cache-dtype fp8"},
		{[]string{"serve", "--hf_token=abc", "--APIKEY", "x"}, "serve '--hf_token=[redacted]' --APIKEY '[redacted]'"},
		{[]string{"sh", "-c", "echo 'hi there'"}, `sh -c 'echo '\''hi there'\'''`},
		{[]string{"perfgate", "sim", "--time-to-first-token", "50ms", "--inter-token-latency", "10ms"}, "perfgate sim --time-to-first-token 50ms --inter-token-latency 10ms"},
		{[]string{"serve", "--auth", "alice", "--url", "http://u:pw@h:1"}, "serve --auth '[redacted]' --url 'http://[redacted]@h:1'"},
	}
	for _, tt := range tests {
		if got := JoinArgv(redact.Argv(tt.in)); got != tt.want {
			t.Errorf("JoinArgv(redact.Argv(%q)) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
