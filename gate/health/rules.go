package health

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// Limits are the thresholds of the host warnings. The GPU rules have no
// threshold: one sample with a real slowdown reason, one other compute
// process, one new uncorrected ECC error or Xid invalidates the trial.
type Limits struct {
	// StealPct warns when the hypervisor stole more than this share of
	// CPU time over the trial, in percent.
	StealPct float64
	// LoadPerCPU warns when the one-minute load average exceeded this many
	// runnable tasks per CPU in any sample.
	LoadPerCPU float64
	// MemAvailable warns when available memory fell under this fraction
	// of the total in any sample.
	MemAvailable float64
}

// DefaultLimits: steal above 5 % (the figure; a dedicated runner
// has none), load above the CPU count (runnable tasks waiting for a CPU:
// the client's and the server's threads queue behind others), available
// memory under 10 % (the kernel is reclaiming page cache, and the next
// allocation may swap or wake the OOM killer).
var DefaultLimits = Limits{StealPct: 5, LoadPerCPU: 1, MemAvailable: 0.10}

func (l Limits) withDefaults() Limits {
	if l.StealPct <= 0 {
		l.StealPct = DefaultLimits.StealPct
	}
	if l.LoadPerCPU <= 0 {
		l.LoadPerCPU = DefaultLimits.LoadPerCPU
	}
	if l.MemAvailable <= 0 {
		l.MemAvailable = DefaultLimits.MemAvailable
	}
	return l
}

// Summarize fills h.Summary from the samples and processes, keeping its
// StealPct (which comes from /proc/stat readings, not samples).
func Summarize(h *result.Health) {
	s := result.HealthSummary{StealPct: h.Summary.StealPct}
	seen := map[string]bool{}
	firstECC, lastECC := map[int]int64{}, map[int]int64{}
	for i, smp := range h.Samples {
		if i == 0 || smp.Load1 > s.MaxLoad1 {
			s.MaxLoad1 = smp.Load1
		}
		if smp.MemTotalMiB > 0 {
			if s.MemTotalMiB == 0 || smp.MemAvailableMiB < s.MinMemAvailableMiB {
				s.MinMemAvailableMiB = smp.MemAvailableMiB
			}
			s.MemTotalMiB = smp.MemTotalMiB
		}
		for _, g := range smp.GPUs {
			idle := false
			for _, r := range g.Reasons {
				seen[r] = true
				idle = idle || r == "gpu_idle"
			}
			if g.MaxSMClockMHz > 0 && g.SMClockMHz > 0 && !idle {
				pct := 100 * g.SMClockMHz / g.MaxSMClockMHz
				if s.MinSMClockPct == 0 || pct < s.MinSMClockPct {
					s.MinSMClockPct = pct
				}
			}
			s.MaxTempC = max(s.MaxTempC, g.TempC)
			s.MaxPowerW = max(s.MaxPowerW, g.PowerW)
			if g.ECCUncorrected != nil {
				if _, ok := firstECC[g.Index]; !ok {
					firstECC[g.Index] = *g.ECCUncorrected
				}
				lastECC[g.Index] = *g.ECCUncorrected
			}
		}
	}
	for _, r := range reasonBits {
		if seen[r.name] {
			s.Reasons = append(s.Reasons, r.name)
			if r.real {
				s.Throttled = append(s.Throttled, r.name)
			}
		}
	}
	var extra []string
	for r := range seen {
		if !known(r) {
			extra = append(extra, r)
		}
	}
	sort.Strings(extra)
	s.Reasons = append(s.Reasons, extra...)
	for i, first := range firstECC {
		if d := lastECC[i] - first; d > 0 {
			s.ECCErrors += d
		}
	}
	for _, p := range h.Processes {
		if p.Owner == OwnerOther {
			s.OtherProcesses++
		}
	}
	if h.OwnLoad == OwnCounted {
		s.MaxOtherLoad1 = maxOtherLoad(h.Samples)
	}
	h.Summary = s
}

func known(name string) bool {
	for _, r := range reasonBits {
		if r.name == name {
			return true
		}
	}
	return false
}

// Judge applies the rules to a summarized h: invalid lists why the trial
// measured the runner rather than the server (a real GPU slowdown, another
// compute process, an uncorrected ECC error, an Xid), warnings what made
// the host busy. Both are sentences for the trial's record.
func Judge(h *result.Health, lim Limits) (invalid, warnings []string) {
	lim = lim.withDefaults()
	s := h.Summary
	if len(s.Throttled) > 0 {
		invalid = append(invalid, throttleReason(h))
	}
	if s.OtherProcesses > 0 {
		var ps []string
		for _, p := range h.Processes {
			if p.Owner != OwnerOther {
				continue
			}
			if len(ps) == 3 {
				ps = append(ps, fmt.Sprintf("and %d more", s.OtherProcesses-3))
				break
			}
			ps = append(ps, fmt.Sprintf("pid %d %s (%.0f MiB on %s)", p.PID, orUnknown(p.Name), p.UsedMiB, orUnknown(p.GPU)))
		}
		invalid = append(invalid, "another process used the GPU during the trial: "+strings.Join(ps, ", "))
	}
	if s.ECCErrors > 0 {
		invalid = append(invalid, fmt.Sprintf("the GPU counted %d new uncorrected ECC error(s) during the trial", s.ECCErrors))
	}
	if len(h.Xid) > 0 {
		invalid = append(invalid, fmt.Sprintf("the kernel logged %d NVIDIA Xid error(s) during the trial, first: %s", len(h.Xid), h.Xid[0]))
	}
	// The host warnings carry no figures (those are in the summary), so
	// the report can count the trials that share one.
	if load, _, what, field := hostLoad(h); h.CPUs > 0 && load > lim.LoadPerCPU*float64(h.CPUs) {
		warnings = append(warnings, fmt.Sprintf("host busy: %s exceeded the %d CPUs during the trial (%s); the client and the server waited for CPU time", what, h.CPUs, field))
	}
	if s.StealPct > lim.StealPct {
		warnings = append(warnings, fmt.Sprintf("host CPU steal above %g %% during the trial (health.summary.steal_pct): the hypervisor gave these CPUs to other guests", lim.StealPct))
	}
	if s.MemTotalMiB > 0 && s.MinMemAvailableMiB < lim.MemAvailable*s.MemTotalMiB {
		warnings = append(warnings, fmt.Sprintf("host memory low: under %g %% of %.0f GiB available during the trial (health.summary.min_mem_available_mib)", 100*lim.MemAvailable, s.MemTotalMiB/1024))
	}
	return invalid, warnings
}

// throttleReason names each GPU's real slowdown reasons with the number of
// samples that showed them.
func throttleReason(h *result.Health) string {
	type key struct {
		gpu    int
		reason string
	}
	n := map[key]int{}
	var order []key
	for _, smp := range h.Samples {
		for _, g := range smp.GPUs {
			for _, r := range g.Reasons {
				k := key{g.Index, r}
				if !Real(r) {
					continue
				}
				if n[k] == 0 {
					order = append(order, k)
				}
				n[k]++
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].gpu < order[j].gpu })
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("GPU %d %s in %d of %d samples", k.gpu, k.reason, n[k], len(h.Samples)))
	}
	return "the GPU throttled during the trial: " + strings.Join(parts, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// Apply records h on t and applies the rules: invalid reasons make t
// invalid (appended to an existing reason) unless recordOnly, which turns
// them into warnings; warnings are appended to t.Warnings.
func Apply(t *result.Trial, h *result.Health, lim Limits, recordOnly bool) {
	invalid, warnings := Judge(h, lim)
	t.Health = h
	if recordOnly {
		for _, r := range invalid {
			warnings = append(warnings, "runner health (recorded only): "+r)
		}
		invalid = nil
	}
	if len(invalid) > 0 {
		why := strings.Join(invalid, "; ")
		if t.InvalidReason != "" {
			why = t.InvalidReason + "; " + why
		}
		t.Valid, t.InvalidReason = false, why
	}
	t.Warnings = append(t.Warnings, warnings...)
}
