package health

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

func gpu(idx int, clock float64, reasons ...string) result.GPUSample {
	return result.GPUSample{Index: idx, UUID: "GPU-" + string(rune('a'+idx)), SMClockMHz: clock, MaxSMClockMHz: 1980, TempC: 60, PowerW: 500, Reasons: reasons}
}

func host(load, avail float64) result.HealthSample {
	return result.HealthSample{Load1: load, MemAvailableMiB: avail, MemTotalMiB: 65536}
}

func withGPUs(s result.HealthSample, g ...result.GPUSample) result.HealthSample {
	s.GPUs = g
	return s
}

// TestJudge: one row per rule, each with the sentence it must produce
// (fragments) or its absence. Benign clock reasons never invalidate.
func TestJudge(t *testing.T) {
	tests := []struct {
		name          string
		h             result.Health
		invalid, warn []string
	}{
		{name: "clean GPU and host", h: result.Health{CPUs: 8, Samples: []result.HealthSample{
			withGPUs(host(2, 40000), gpu(0, 210, "gpu_idle")), withGPUs(host(3, 40000), gpu(0, 1980)), withGPUs(host(3, 40000), gpu(0, 1900, "sw_power_cap")),
		}}},
		{name: "benign reasons only", h: result.Health{CPUs: 8, Samples: []result.HealthSample{
			withGPUs(host(1, 40000), gpu(0, 1410, "applications_clocks_setting", "sync_boost", "display_clock_setting")),
		}}},
		{name: "hw slowdown", h: result.Health{CPUs: 8, Samples: []result.HealthSample{
			withGPUs(host(1, 40000), gpu(0, 1980), gpu(1, 1980)), withGPUs(host(1, 40000), gpu(0, 1980), gpu(1, 990, "hw_slowdown")),
		}}, invalid: []string{"the GPU throttled during the trial: GPU 1 hw_slowdown in 1 of 2 samples"}},
		{name: "thermal and power brake", h: result.Health{CPUs: 8, Samples: []result.HealthSample{
			withGPUs(host(1, 40000), gpu(0, 1200, "sw_thermal_slowdown"), gpu(1, 900, "hw_slowdown", "hw_power_brake_slowdown")),
		}}, invalid: []string{"GPU 0 sw_thermal_slowdown in 1 of 1 samples, GPU 1 hw_slowdown in 1 of 1 samples, GPU 1 hw_power_brake_slowdown"}},
		{name: "another process", h: result.Health{CPUs: 8, Samples: []result.HealthSample{host(1, 40000)}, Processes: []result.GPUProcess{
			{PID: 10, Name: "vllm", Owner: OwnerServer}, {PID: 11, Name: "python3", UsedMiB: 2048, GPU: "GPU-a", Owner: OwnerOther}, {PID: 12, Owner: OwnerAssumed},
		}}, invalid: []string{"another process used the GPU during the trial: pid 11 python3 (2048 MiB on GPU-a)"}},
		{name: "ECC errors counted over the trial", h: result.Health{CPUs: 8, Samples: []result.HealthSample{
			withGPUs(host(1, 40000), result.GPUSample{Index: 0, ECCUncorrected: i64(3)}), withGPUs(host(1, 40000), result.GPUSample{Index: 0, ECCUncorrected: i64(5)}),
		}}, invalid: []string{"the GPU counted 2 new uncorrected ECC error(s) during the trial"}},
		{name: "old ECC errors are not new", h: result.Health{CPUs: 8, Samples: []result.HealthSample{
			withGPUs(host(1, 40000), result.GPUSample{Index: 0, ECCUncorrected: i64(3)}), withGPUs(host(1, 40000), result.GPUSample{Index: 0, ECCUncorrected: i64(3)}),
		}}},
		{name: "Xid", h: result.Health{CPUs: 8, Samples: []result.HealthSample{host(1, 40000)}, Xid: []string{"NVRM: Xid (PCI:0000:3b:00): 79"}},
			invalid: []string{"the kernel logged 1 NVIDIA Xid error(s) during the trial, first: NVRM: Xid (PCI:0000:3b:00): 79"}},
		{name: "load above the CPUs", h: result.Health{CPUs: 2, Samples: []result.HealthSample{host(1.5, 40000), host(2.6, 40000)}},
			warn: []string{"host busy: the load average exceeded the 2 CPUs during the trial (health.summary.max_load1)"}},
		{name: "load at the CPUs is not busy", h: result.Health{CPUs: 2, Samples: []result.HealthSample{host(2, 40000)}}},
		{name: "steal", h: result.Health{CPUs: 8, Samples: []result.HealthSample{host(1, 40000)}, Summary: result.HealthSummary{StealPct: 7.25}},
			warn: []string{"host CPU steal above 5 % during the trial (health.summary.steal_pct)"}},
		{name: "steal at the limit", h: result.Health{CPUs: 8, Samples: []result.HealthSample{host(1, 40000)}, Summary: result.HealthSummary{StealPct: 5}}},
		{name: "low memory", h: result.Health{CPUs: 8, Samples: []result.HealthSample{host(1, 40000), host(1, 3000)}},
			warn: []string{"host memory low: under 10 % of 64 GiB available during the trial"}},
		{name: "host unread", h: result.Health{Samples: []result.HealthSample{{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.h
			Summarize(&h)
			inv, warn := Judge(&h, Limits{})
			check := func(kind string, got, want []string) {
				if len(got) != len(want) {
					t.Fatalf("%s = %q, want %d matching %q", kind, got, len(want), want)
				}
				for i := range want {
					if !strings.Contains(got[i], want[i]) {
						t.Errorf("%s[%d] = %q, want it to contain %q", kind, i, got[i], want[i])
					}
				}
			}
			check("invalid", inv, tt.invalid)
			check("warnings", warn, tt.warn)
			// Unhealthy (busy.go) labels exactly what Judge finds.
			if got := Unhealthy(&h, Limits{}); len(got) != len(inv)+len(warn) {
				t.Errorf("Unhealthy = %q, want one label per finding of Judge (%q, %q)", got, inv, warn)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	h := result.Health{Summary: result.HealthSummary{StealPct: 1.5}, Samples: []result.HealthSample{
		withGPUs(host(2, 50000), gpu(0, 210, "gpu_idle"), gpu(1, 1980)),
		withGPUs(host(4, 30000), gpu(0, 1485, "sw_power_cap"), result.GPUSample{Index: 1, SMClockMHz: 1980, MaxSMClockMHz: 1980, TempC: 83, PowerW: 690, Reasons: []string{"hw_slowdown", "bit_12"}}),
	}, Processes: []result.GPUProcess{{PID: 1, Owner: OwnerOther}, {PID: 2, Owner: OwnerServer}}}
	Summarize(&h)
	want := result.HealthSummary{
		MinSMClockPct: 75, MaxTempC: 83, MaxPowerW: 690, StealPct: 1.5,
		Throttled: []string{"hw_slowdown"}, Reasons: []string{"gpu_idle", "sw_power_cap", "hw_slowdown", "bit_12"},
		OtherProcesses: 1, MaxLoad1: 4, MinMemAvailableMiB: 30000, MemTotalMiB: 65536,
	}
	if !reflect.DeepEqual(h.Summary, want) {
		t.Errorf("Summary:\n got %+v\nwant %+v", h.Summary, want)
	}
}

// TestApply: invalid findings invalidate (after any reason the trial
// already had) unless recordOnly turns them into warnings.
func TestApply(t *testing.T) {
	h := result.Health{CPUs: 1, Samples: []result.HealthSample{withGPUs(host(3, 40000), gpu(0, 990, "hw_slowdown"))}}
	Summarize(&h)
	tr := result.Trial{Valid: false, InvalidReason: "2 of 10 requests failed"}
	Apply(&tr, &h, Limits{}, false)
	if tr.Valid || !strings.HasPrefix(tr.InvalidReason, "2 of 10 requests failed; the GPU throttled") || len(tr.Warnings) != 1 || tr.Health != &h {
		t.Errorf("Apply: valid %v, reason %q, warnings %q", tr.Valid, tr.InvalidReason, tr.Warnings)
	}
	tr = result.Trial{Valid: true}
	Apply(&tr, &h, Limits{}, true)
	if !tr.Valid || tr.InvalidReason != "" || len(tr.Warnings) != 2 || !strings.HasPrefix(tr.Warnings[1], "runner health (recorded only): the GPU throttled") {
		t.Errorf("Apply recordOnly: valid %v, reason %q, warnings %q", tr.Valid, tr.InvalidReason, tr.Warnings)
	}
}

func TestOwner(t *testing.T) {
	// 100 is the launched server (group 100); 110 its worker, 120 a worker
	// that called setsid (own group) under 110; 200 someone else's job.
	procs := map[int]ProcStat{
		100: {PPID: 50, PGRP: 100}, 110: {PPID: 100, PGRP: 100}, 120: {PPID: 110, PGRP: 120},
		200: {PPID: 1, PGRP: 200}, 300: {PPID: 300, PGRP: 5},
	}
	stat := func(pid int) (ProcStat, bool) { st, ok := procs[pid]; return st, ok }
	atStart := map[int]bool{110: true, 200: true, 9000: true}
	tests := []struct {
		pid, group int
		want       string
	}{
		{100, 100, OwnerServer},
		{110, 100, OwnerServer},
		{120, 100, OwnerServer},   // a descendant in its own session
		{200, 100, OwnerOther},    // visible, not the server's, though there at the start
		{300, 100, OwnerOther},    // its own parent: the walk stops
		{9000, 100, OwnerAssumed}, // another PID namespace, there at the start
		{9001, 100, OwnerOther},   // another PID namespace, appeared later
		{200, 0, OwnerAssumed},    // not launched: there at the start
		{110, 0, OwnerAssumed},
		{120, 0, OwnerOther}, // not launched, appeared later
	}
	for _, tt := range tests {
		if got := Owner(tt.pid, tt.group, stat, atStart); got != tt.want {
			t.Errorf("Owner(%d, group %d) = %q, want %q", tt.pid, tt.group, got, tt.want)
		}
	}
}
