package bisect

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/result"
)

// runnerBusy says, for an experiment's judged blocks, how many valid
// trials of either arm ran while the runner was unhealthy (health.BusyOf,
// the rule `perfgate gate` and `perfgate ab` hold regressions by), empty
// when none did. A search holds both arms to it, not only arm B as the
// paired verdict does: a step reasons from the midpoint, which is arm B
// of one experiment and arm A of the other, so a neighbour that slows the
// midpoint's blocks makes one side look worse and the other better, and
// the step would follow the change into the wrong half.
func runnerBusy(a, b []*result.Result) string {
	var all health.Busy
	for _, rs := range [][]*result.Result{a, b} {
		for _, r := range rs {
			if r != nil {
				all = all.Add(health.BusyOf(r.Trials))
			}
		}
	}
	if all.Busy == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the %d valid trials ran while the runner was unhealthy (%s)", all.Busy, all.Valid, strings.Join(all.Problems, ", "))
}

// busyWhy is why a search stopped at experiment m, measured on a busy
// runner: no share of busy trials is small enough to trust (the verdict's
// rule), and more blocks cannot help, since the busy ones stay in the
// experiment; the Bench keeps them on disk, so they must be removed
// before the rerun.
func (s *searcher) busyWhy(m Measure) string {
	a, b := short(s.commits[m.A].SHA), short(s.commits[m.B].SHA)
	return fmt.Sprintf("the runner was busy: in the experiment of %s against %s, %s, so it cannot say which commit changed %s (a neighbour slows whichever commit's blocks it meets); remove that experiment (pairs/%s-%s in the output directory) and rerun on an idle runner (no other jobs on this host or GPU)",
		b, a, m.RunnerBusy, s.o.Metric, a, b)
}
