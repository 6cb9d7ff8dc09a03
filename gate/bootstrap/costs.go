package bootstrap

import (
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// CostsOf are a calibration's measured costs, from its sessions' result
// files and its wall time over starts server starts: one trial of every
// cell (each cell's wall time per trial, warmups included, averaged over
// the sessions, summed over the cells) and one server start (the wall
// time not spent in cells, per start). A result without trials or
// without a forward span of time counts for nothing.
func CostsOf(sessions []map[string]*result.Result, wall time.Duration, starts int) Costs {
	perCell := map[string][]time.Duration{}
	var inCells time.Duration
	for _, sess := range sessions {
		for cell, r := range sess {
			d := r.FinishedAt.Sub(r.StartedAt)
			if d <= 0 || len(r.Trials) == 0 {
				continue
			}
			inCells += d
			perCell[cell] = append(perCell[cell], d/time.Duration(len(r.Trials)))
		}
	}
	var c Costs
	for _, ds := range perCell {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		c.Trial += sum / time.Duration(len(ds))
	}
	if starts > 0 && wall > inCells {
		c.Startup = (wall - inCells) / time.Duration(starts)
	}
	return c
}
