package fingerprint

import (
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	base := map[string]string{
		GPUName: "NVIDIA H100 80GB HBM3", GPUCount: "8", ServerModel: "Qwen/Qwen3-235B",
		GPUDriver: "550.54.15", CUDAVersion: "12.4", VLLMVersion: "0.11.0",
		"env.NCCL_P2P_DISABLE": "1", "env.VLLM_USE_V1": "1", Kernel: "6.8.0",
		GPUMaxSMClock: "1980", "meta.team": "a",
	}
	cand := map[string]string{
		GPUName: "NVIDIA H100 80GB HBM3", GPUCount: "8", ServerModel: "Qwen/Qwen3-235B",
		GPUDriver: "560.1", CUDAVersion: "12.6", VLLMVersion: "0.11.1",
		"env.NCCL_SHM_DISABLE": "1", "env.VLLM_USE_V1": "0", Kernel: "6.8.1",
		GPUMaxSMClock: "1755", "meta.team": "b",
	}
	hard, soft := Diff(base, cand)
	if len(hard) != 0 {
		t.Errorf("hard = %v, want none", hard)
	}
	var order []string
	for _, d := range soft {
		order = append(order, d.Key)
	}
	want := []string{
		"env.NCCL_P2P_DISABLE", "env.NCCL_SHM_DISABLE", // the communication path first
		GPUDriver, CUDAVersion, VLLMVersion,
		"env.VLLM_USE_V1", GPUMaxSMClock, Kernel, "meta.team",
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("soft order = %v\nwant %v", order, want)
	}
	if soft[0] != (Difference{Key: "env.NCCL_P2P_DISABLE", A: "1", B: ""}) {
		t.Errorf("soft[0] = %+v", soft[0])
	}
}

func TestDiffHard(t *testing.T) {
	a := map[string]string{GPUName: "H100", GPUCount: "8", ServerModel: "m"}
	tests := []struct {
		name     string
		b        map[string]string
		hard     []Difference
		softKeys int
	}{
		{"equal", map[string]string{GPUName: "H100", GPUCount: "8", ServerModel: "m"}, nil, 0},
		// TP4 x 2 replicas vs TP8 on four GPUs: not comparable.
		{"count", map[string]string{GPUName: "H100", GPUCount: "4", ServerModel: "m"}, []Difference{{GPUCount, "8", "4"}}, 0},
		{"gpu and model", map[string]string{GPUName: "A100", GPUCount: "8", ServerModel: "n"},
			[]Difference{{GPUName, "H100", "A100"}, {ServerModel, "m", "n"}}, 0},
		// An imported result without GPU facts: reported, not refused.
		{"missing", map[string]string{ServerModel: "m"}, nil, 2},
	}
	for _, tt := range tests {
		hard, soft := Diff(a, tt.b)
		if !reflect.DeepEqual(hard, tt.hard) || len(soft) != tt.softKeys {
			t.Errorf("%s: hard %v soft %v; want hard %v and %d soft", tt.name, hard, soft, tt.hard, tt.softKeys)
		}
	}
}
