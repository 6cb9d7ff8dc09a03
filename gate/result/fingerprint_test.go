package result

import (
	"reflect"
	"testing"
)

func TestDiffFingerprints(t *testing.T) {
	hard := []string{KeyGPUName, KeyGPUCount, KeyServerModel}
	base := map[string]string{KeyGPUName: "H100", KeyGPUCount: "8", KeyServerModel: "m", KeyVLLMVersion: "0.11.0", EnvPrefix + "NCCL_P2P_DISABLE": "1"}
	for _, c := range []struct {
		name string
		cand map[string]string
		want []FingerprintDiff
	}{
		{"equal", map[string]string{KeyGPUName: "H100", KeyGPUCount: "8", KeyServerModel: "m", KeyVLLMVersion: "0.11.0", EnvPrefix + "NCCL_P2P_DISABLE": "1"}, nil},
		// TP4 x 2 replicas vs TP8 on four GPUs: a hard difference; the
		// dropped NCCL variable and the new version are soft.
		{"count", map[string]string{KeyGPUName: "H100", KeyGPUCount: "4", KeyServerModel: "m", KeyVLLMVersion: "0.11.1"}, []FingerprintDiff{
			{Key: "env.NCCL_P2P_DISABLE", Baseline: "1"},
			{Key: KeyGPUCount, Baseline: "8", Candidate: "4", Hard: true},
			{Key: KeyVLLMVersion, Baseline: "0.11.0", Candidate: "0.11.1"},
		}},
		// A hard key one side lacks is hard: nothing shows the runs used
		// the same GPU.
		{"missing", map[string]string{KeyGPUCount: "8", KeyServerModel: "m", KeyVLLMVersion: "0.11.0", EnvPrefix + "NCCL_P2P_DISABLE": "1"}, []FingerprintDiff{
			{Key: KeyGPUName, Baseline: "H100", Hard: true},
		}},
	} {
		if got := DiffFingerprints(base, c.cand, hard); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}
