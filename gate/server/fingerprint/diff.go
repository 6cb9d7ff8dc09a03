package fingerprint

import (
	"sort"
	"strings"
)

// HardKeys must be equal for two results to be compared: a different GPU
// model, GPU count or served model is a different experiment, not a
// regression.
var HardKeys = []string{GPUName, GPUCount, ServerModel}

// Difference is one key whose value differs between two fingerprints. An
// empty A or B means the key is missing on that side.
type Difference struct {
	Key  string
	A, B string
}

// Diff compares fingerprints a (say, the baseline) and b (the candidate).
// hard lists hard keys present on both sides with different values. soft
// lists every other difference, first suspects first: NCCL variables (the
// communication path), then driver, CUDA and vLLM versions, then other
// environment variables, the server command line, the remaining GPU facts
// (clocks, power, memory) and the host, then anything else. A hard key
// missing on one side (an imported result without GPU facts) is soft: the
// comparison cannot be proven wrong, but the report should say so.
func Diff(a, b map[string]string) (hard, soft []Difference) {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	isHard := map[string]bool{}
	for _, k := range HardKeys {
		isHard[k] = true
	}
	for k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb && va == vb {
			continue
		}
		d := Difference{Key: k, A: va, B: vb}
		if isHard[k] && oka && okb {
			hard = append(hard, d)
		} else {
			soft = append(soft, d)
		}
	}
	sort.Slice(hard, func(i, j int) bool { return hard[i].Key < hard[j].Key })
	sort.Slice(soft, func(i, j int) bool {
		ri, rj := rank(soft[i].Key), rank(soft[j].Key)
		if ri != rj {
			return ri < rj
		}
		return soft[i].Key < soft[j].Key
	})
	return hard, soft
}

// rank orders soft differences by how likely they explain a performance
// change (lower first).
func rank(key string) int {
	switch {
	case strings.HasPrefix(key, "env.NCCL_"):
		return 0
	case key == GPUDriver:
		return 1
	case key == CUDAVersion:
		return 2
	case key == VLLMVersion:
		return 3
	case strings.HasPrefix(key, "env."):
		return 4
	case key == ServerArgv:
		return 5
	case strings.HasPrefix(key, "gpu.") || key == ServerModel:
		return 6
	case key == CPUModel || key == Kernel:
		return 7
	}
	return 8
}
