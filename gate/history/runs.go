package history

import (
	"math"

	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Runs are the cell's sessions as the report's trend draws them: only the
// sessions of the newest workload hash are points of the series, and each
// session's summary is on the verdict's test scale, so a run's centre is
// exp(mean) for a relative metric (the geometric mean of its trial
// values, as verdict.Arm.Centre) and the mean for an absolute one.
func (c *Cell) Runs() []report.Run {
	runs := make([]report.Run, 0, len(c.Sessions))
	for _, s := range c.Sessions {
		centre := map[string]float64{}
		for id, sum := range s.Summary {
			if sum.N == 0 {
				continue
			}
			if verdict.Absolute(id) {
				centre[id] = sum.Mean
			} else {
				centre[id] = math.Exp(sum.Mean)
			}
		}
		runs = append(runs, report.Run{Commit: s.Commit, PromotedAt: s.PromotedAt, Centre: centre})
	}
	return runs
}
