package health

import (
	"fmt"
	"slices"
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
	if load, label, _, _ := hostLoad(h); h.CPUs > 0 && load > lim.LoadPerCPU*float64(h.CPUs) {
		out = append(out, label)
	}
	if s.StealPct > lim.StealPct {
		out = append(out, fmt.Sprintf("CPU steal above %g %%", lim.StealPct))
	}
	if s.MemTotalMiB > 0 && s.MinMemAvailableMiB < lim.MemAvailable*s.MemTotalMiB {
		out = append(out, "host memory low")
	}
	return out
}

// Busy is what a run's valid trials say about the runner: how many were
// measured while it was unhealthy (Unhealthy at DefaultLimits), out of
// how many, and the distinct problems in the order first seen. Every
// verdict that turns a measured worsening into a regression reads it
// (gate/verdict for a stored baseline and for gate/ab's paired arms,
// gate/bisect for each step's experiments), so a busy runner is judged
// by one rule everywhere.
type Busy struct {
	Busy, Valid int
	Problems    []string
}

// BusyOf reads the runner health of trials' valid ones. Trials without
// health (not sampled, imported results) count as healthy: nothing says
// otherwise.
func BusyOf(trials []result.Trial) Busy {
	var b Busy
	seen := map[string]bool{}
	for _, t := range trials {
		if !t.Valid {
			continue
		}
		b.Valid++
		ps := Unhealthy(t.Health, DefaultLimits)
		if len(ps) == 0 {
			continue
		}
		b.Busy++
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				b.Problems = append(b.Problems, p)
			}
		}
	}
	return b
}

// Add is b and o together: two arms or two experiments of one decision.
func (b Busy) Add(o Busy) Busy {
	out := Busy{Busy: b.Busy + o.Busy, Valid: b.Valid + o.Valid, Problems: append([]string(nil), b.Problems...)}
	for _, p := range o.Problems {
		if !slices.Contains(out.Problems, p) {
			out.Problems = append(out.Problems, p)
		}
	}
	return out
}
