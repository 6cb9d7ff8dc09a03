package result

import (
	"maps"
	"slices"
)

// Fingerprint keys (Result.Fingerprint is a flat map of "group.key"
// facts). The collector writes them, the importer writes the ones vLLM's
// files have, the verdict matches on some and the report shows them; the
// names live here, with the file format, so they cannot drift apart.
const (
	KeyGPUName       = "gpu.name"
	KeyGPUCount      = "gpu.count"
	KeyGPUDriver     = "gpu.driver"
	KeyGPUMemoryMiB  = "gpu.memory_mib"
	KeyGPUMaxSMClock = "gpu.max_sm_clock_mhz"
	KeyGPUPowerLimit = "gpu.power_limit_w"
	KeyCUDAVersion   = "cuda.version"
	KeyVLLMVersion   = "vllm.version"
	KeyServerModel   = "server.model"
	// KeyServerArgv is the launched server's command line as a JSON array.
	KeyServerArgv = "server.argv"
	KeyCPUModel   = "cpu.model"
	KeyKernel     = "kernel"
	// KeyServerEngine is the engine profile the run used (gate/engine);
	// KeyServerVersion the version of an engine other than vLLM, whose
	// own stays under KeyVLLMVersion. KeyTensorParallel is the
	// tensor-parallel degree read from the launch command.
	KeyServerEngine   = "server.engine"
	KeyServerVersion  = "server.version"
	KeyTensorParallel = "server.tensor_parallel_size"

	// Keys of results imported from `vllm bench serve` files.
	KeyBenchBackend   = "bench.backend"
	KeyBenchEndpoint  = "bench.endpoint_type"
	KeyBenchLabel     = "bench.label"
	KeyBenchTokenizer = "bench.tokenizer_id"

	// EnvPrefix starts the key of a recorded environment variable
	// (env.NCCL_P2P_DISABLE); MetaPrefix one of vLLM's --metadata entries.
	EnvPrefix  = "env."
	MetaPrefix = "meta."
)

// FingerprintDiff is one fingerprint key that differs between a baseline
// and a candidate. An empty value means the key is absent on that side.
type FingerprintDiff struct {
	Key       string `json:"key"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	// Hard keys must match for the two to be compared; soft ones are
	// listed only.
	Hard bool `json:"hard"`
}

// DiffFingerprints lists the keys whose values differ between b and c,
// sorted by key. A key of hardKeys is hard even when one side lacks it: a
// result that cannot show it ran on the same GPU is not proven comparable.
func DiffFingerprints(b, c map[string]string, hardKeys []string) []FingerprintDiff {
	hard := map[string]bool{}
	for _, k := range hardKeys {
		hard[k] = true
	}
	var out []FingerprintDiff
	for _, k := range keyUnion(b, c) {
		if b[k] != c[k] {
			out = append(out, FingerprintDiff{Key: k, Baseline: b[k], Candidate: c[k], Hard: hard[k]})
		}
	}
	return out
}

// keyUnion is the keys of a and b, sorted, each once.
func keyUnion(a, b map[string]string) []string {
	keys := make(map[string]string, len(a)+len(b))
	maps.Copy(keys, a)
	maps.Copy(keys, b)
	return slices.Sorted(maps.Keys(keys))
}
