package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// healthRow is one figure of the runner-health table: its value for one
// arm, "" when the arm did not record it.
type healthRow struct {
	label string
	value func(hs []*result.Health, trials int) string
}

// healthRows are the figures shown, medians over the trials that recorded
// health. Every trial counts, invalid ones included: a trial the GPU
// throttled in is invalid, and it is what this table must show.
var healthRows = []healthRow{
	{"GPU sampled by", func(hs []*result.Health, _ int) string {
		var seen []string
		for _, h := range hs {
			if !contains(seen, h.GPU) {
				seen = append(seen, h.GPU)
			}
		}
		return Escape(strings.Join(seen, "; "))
	}},
	{"SM clock min, % of max", medianOf(func(s result.HealthSummary) float64 { return s.MinSMClockPct }, func(v float64) string { return fmt.Sprintf("%.0f %%", v) })},
	{"GPU temperature max", medianOf(func(s result.HealthSummary) float64 { return s.MaxTempC }, func(v float64) string { return fmt.Sprintf("%.0f °C", v) })},
	{"GPU power max", medianOf(func(s result.HealthSummary) float64 { return s.MaxPowerW }, func(v float64) string { return fmt.Sprintf("%.0f W", v) })},
	{"real throttling", trialsWith(func(h *result.Health) []string { return h.Summary.Throttled })},
	{"other GPU processes", trialsWith(func(h *result.Health) []string {
		if h.Summary.OtherProcesses > 0 {
			return []string{"present"}
		}
		return nil
	})},
	{"ECC errors, Xid", trialsWith(func(h *result.Health) []string {
		var out []string
		if h.Summary.ECCErrors > 0 {
			out = append(out, "uncorrected ECC")
		}
		if len(h.Xid) > 0 {
			out = append(out, "Xid")
		}
		return out
	})},
	{"load average max / CPUs", func(hs []*result.Health, _ int) string {
		v := medianOf(func(s result.HealthSummary) float64 { return s.MaxLoad1 }, func(v float64) string { return fmt.Sprintf("%.1f", v) })(hs, 0)
		return fmt.Sprintf("%s / %d", v, hs[len(hs)-1].CPUs)
	}},
	{"CPU steal", medianOf(func(s result.HealthSummary) float64 { return s.StealPct }, func(v float64) string { return fmt.Sprintf("%.1f %%", v) })},
	{"memory available min", medianOf(func(s result.HealthSummary) float64 { return s.MinMemAvailableMiB }, func(v float64) string { return fmt.Sprintf("%.1f GiB", v/1024) })},
}

// medianOf renders the median of a summary figure over the trials that
// have it (non-zero), "–" when none has.
func medianOf(get func(result.HealthSummary) float64, format func(float64) string) func([]*result.Health, int) string {
	return func(hs []*result.Health, _ int) string {
		var v []float64
		for _, h := range hs {
			if x := get(h.Summary); x > 0 {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return "–"
		}
		return format(metrics.MedianOf(v))
	}
}

// trialsWith counts the trials for which names is not empty and lists the
// names: "hw_slowdown in 3 of 6 trials", "–" for none.
func trialsWith(names func(*result.Health) []string) func([]*result.Health, int) string {
	return func(hs []*result.Health, trials int) string {
		n := 0
		seen := map[string]bool{}
		for _, h := range hs {
			got := names(h)
			if len(got) > 0 {
				n++
			}
			for _, s := range got {
				seen[s] = true
			}
		}
		if n == 0 {
			return "–"
		}
		all := slices.Sorted(maps.Keys(seen))
		return fmt.Sprintf("%s in %d of %d trials", Escape(strings.Join(all, ", ")), n, trials)
	}
}

// healths returns the health records of r's trials and how many trials
// there are.
func healths(r *result.Result) ([]*result.Health, int) {
	if r == nil {
		return nil, 0
	}
	var hs []*result.Health
	for i := range r.Trials {
		if h := r.Trials[i].Health; h != nil {
			hs = append(hs, h)
		}
	}
	return hs, len(r.Trials)
}

// healthVerdict is an arm's health in a few words for the collapsed
// section's summary line: "clean", or what went wrong in how many trials.
func healthVerdict(hs []*result.Health, trials int) string {
	if len(hs) == 0 {
		return "not sampled"
	}
	var throttled, shared, faults, busy int
	for _, h := range hs {
		s := h.Summary
		if len(s.Throttled) > 0 {
			throttled++
		}
		if s.OtherProcesses > 0 {
			shared++
		}
		if s.ECCErrors > 0 || len(h.Xid) > 0 {
			faults++
		}
		// The host rules are health's; a renderer does not restate them.
		if _, warnings := health.Judge(h, health.Limits{}); len(warnings) > 0 {
			busy++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{throttled, "GPU throttled"}, {shared, "GPU shared"}, {faults, "GPU faults"}, {busy, "host busy"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%s in %d of %d trials", p.what, p.n, trials))
		}
	}
	if len(parts) == 0 {
		return "clean"
	}
	return strings.Join(parts, ", ")
}

// healthContext is the runner-health part of a workload's server context:
// one collapsed section (one visible line, so the comment's VisibleLines
// budget holds) whose summary says each arm's health in a few words and
// whose table has the figures. "" when neither arm recorded health.
func healthContext(d *Data, cell string) string {
	bh, bn := healths(d.Baselines[cell])
	ch, cn := healths(d.Candidates[cell])
	if len(bh) == 0 && len(ch) == 0 {
		return ""
	}
	var b strings.Builder
	n := armsOf(d)
	fmt.Fprintf(&b, "| runner | %s | %s |\n|---|---|---|\n", strings.ToLower(n.base), strings.ToLower(n.cand))
	for _, row := range healthRows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", row.label, healthValue(row, bh, bn), healthValue(row, ch, cn))
	}
	summary := fmt.Sprintf("Runner health, %s → %s: %s → %s", strings.ToLower(n.base), strings.ToLower(n.cand), healthVerdict(bh, bn), healthVerdict(ch, cn))
	return details(HTMLText(summary), b.String())
}

func healthValue(row healthRow, hs []*result.Health, trials int) string {
	if len(hs) == 0 {
		return "–"
	}
	return row.value(hs, trials)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// healthText is the terminal report's runner health: one line per
// workload whose health, in either arm, is neither clean nor unsampled,
// in healthVerdict's words (the markdown's collapsed summary line); ""
// when there is nothing to say, so a clean run's report stays as it was.
func healthText(d *Data) string {
	var b strings.Builder
	n := armsOf(d)
	for _, wl := range d.Comparison.Workloads {
		bh, bn := healths(d.Baselines[wl.Cell])
		ch, cn := healths(d.Candidates[wl.Cell])
		bv, cv := healthVerdict(bh, bn), healthVerdict(ch, cn)
		if !healthFinding(bv) && !healthFinding(cv) {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\nRunner health, %s -> %s:\n", strings.ToLower(n.base), strings.ToLower(n.cand))
		}
		fmt.Fprintf(&b, "  %s: %s -> %s\n", plain(Truncate(wl.Cell, 48)), bv, cv)
	}
	return b.String()
}

// healthFinding reports whether an arm's healthVerdict says something
// went wrong.
func healthFinding(verdict string) bool { return verdict != "clean" && verdict != "not sampled" }
