package health

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// Unhealthy names, in a few words each, what made the runner unfit to
// measure on during a trial whose health h records: the problems Judge
// finds (the same rules and limits), as short labels a verdict can list
// across trials ("load above the 2 CPUs", "GPU throttled (hw_slowdown)").
// It is empty exactly when Judge finds nothing.
//
// The verdict reads it (gate/verdict, health.go): a trial measured on a
// busy host or GPU is valid data for a pass, but a regression it shows may
// be the neighbour's rather than the change's, so it never becomes one.
// Judge's invalid reasons appear here too, for trials a run kept anyway
// (PERFGATE_RUNNER_HEALTH=record).
func Unhealthy(h *result.Health, lim Limits) []string {
	if h == nil {
		return nil
	}
	lim = lim.withDefaults()
	s := h.Summary
	var out []string
	if len(s.Throttled) > 0 {
		out = append(out, "GPU throttled ("+strings.Join(s.Throttled, ", ")+")")
	}
	if s.OtherProcesses > 0 {
		out = append(out, "another process on the GPU")
	}
	if s.ECCErrors > 0 {
		out = append(out, "uncorrected GPU ECC errors")
	}
	if len(h.Xid) > 0 {
		out = append(out, "NVIDIA Xid errors")
	}
	if h.CPUs > 0 && s.MaxLoad1 > lim.LoadPerCPU*float64(h.CPUs) {
		out = append(out, fmt.Sprintf("load above the %d CPUs", h.CPUs))
	}
	if s.StealPct > lim.StealPct {
		out = append(out, fmt.Sprintf("CPU steal above %g %%", lim.StealPct))
	}
	if s.MemTotalMiB > 0 && s.MinMemAvailableMiB < lim.MemAvailable*s.MemTotalMiB {
		out = append(out, "host memory low")
	}
	return out
}
