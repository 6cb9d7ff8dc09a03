package health

import (
	"fmt"
	"math/bits"
)

// Clock event reasons are the bits of nvidia-smi's
// clocks_event_reasons.active (NVML's nvmlClocksEventReason* constants).
// Real ones slow the GPU below what the workload asked for because of the
// hardware or its cooling; benign ones say the GPU had nothing to do, or
// follow a setting that is the same for every trial.
var reasonBits = []struct {
	bit  uint64
	name string
	real bool
}{
	{0x1, "gpu_idle", false},
	{0x2, "applications_clocks_setting", false},
	// The GPU at its configured power limit is the normal state of a
	// saturated GPU (H100s serving large batches sit there), and the
	// limit itself is in the fingerprint (gpu.power_limit_w).
	{0x4, "sw_power_cap", false},
	{0x8, "hw_slowdown", true},
	{0x10, "sync_boost", false},
	{0x20, "sw_thermal_slowdown", true},
	{0x40, "hw_thermal_slowdown", true},
	{0x80, "hw_power_brake_slowdown", true},
	{0x100, "display_clock_setting", false},
}

// ReasonNames names the set bits of a clock event reasons mask, in bit
// order; a bit NVML did not define when this was written is "bit_N".
func ReasonNames(mask uint64) []string {
	var names []string
	for mask != 0 {
		b := uint64(1) << bits.TrailingZeros64(mask)
		mask &^= b
		name := fmt.Sprintf("bit_%d", bits.TrailingZeros64(b))
		for _, r := range reasonBits {
			if r.bit == b {
				name = r.name
			}
		}
		names = append(names, name)
	}
	return names
}

// Real reports whether a named reason is a real slowdown: hw_slowdown,
// hw_thermal_slowdown, hw_power_brake_slowdown or sw_thermal_slowdown.
func Real(name string) bool {
	for _, r := range reasonBits {
		if r.name == name {
			return r.real
		}
	}
	return false
}
