package result

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A trial's runner health survives a write and a read, byte-stable, and a
// result without it has no health key at all.
func TestHealthRoundTrip(t *testing.T) {
	zero := int64(0)
	want := sample()
	want.Trials[0].Health = &Health{
		GPU: "nvidia-smi", CPUs: 16,
		Samples: []HealthSample{{AtS: 0, Load1: 3.5, MemAvailableMiB: 90000, MemTotalMiB: 131072, GPUs: []GPUSample{{
			Index: 0, UUID: "GPU-0aa", SMClockMHz: 990, MaxSMClockMHz: 1980, TempC: 71, PowerW: 402, PowerLimitW: 700, UtilPct: 93,
			Reasons: []string{"hw_slowdown"}, ECCUncorrected: &zero,
		}}}},
		Processes: []GPUProcess{{PID: 4242, Name: "python3", GPU: "GPU-0aa", UsedMiB: 20480, Owner: "other"}},
		Xid:       []string{"NVRM: Xid (PCI:0000:3b:00): 79"},
		XidNote:   "",
		Summary:   HealthSummary{MinSMClockPct: 50, MaxTempC: 71, MaxPowerW: 402, Throttled: []string{"hw_slowdown"}, Reasons: []string{"hw_slowdown"}, OtherProcesses: 1, MaxLoad1: 3.5, StealPct: 0.5, MinMemAvailableMiB: 90000, MemTotalMiB: 131072},
		Notes:     []string{"GPU processes not read: x"},
	}
	path := filepath.Join(t.TempDir(), FileName("w@c4"))
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Trials[0].Health, want.Trials[0].Health) {
		t.Fatalf("health changed:\n got %+v\nwant %+v", got.Trials[0].Health, want.Trials[0].Health)
	}
	data, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	if bytesContain(data, `"health"`) {
		t.Error("a trial without health carries a health key")
	}
}

func bytesContain(b []byte, s string) bool { return strings.Contains(string(b), s) }
