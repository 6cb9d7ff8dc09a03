package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/verdict"
)

// gateAttachHistory gives the report the promoted runs of each compared
// workload from baselines/<profile>/history/<cell>.jsonl, so the list of
// regressed and undecided metrics shows a trend. History is context, not
// judgement: a cell without a history file has no trend, and a history
// file that does not parse is named in a warning (file and line) and
// left out rather than failing a gate whose verdict does not depend on it.
func gateAttachHistory(d *report.Data, root, profile string, warn io.Writer) {
	store := baseline.Store{Root: root}
	for _, w := range d.Comparison.Workloads {
		if w.Status != verdict.Compared {
			continue
		}
		lines, err := store.ReadHistory(profile, w.Cell)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			fmt.Fprintf(warn, "perfgate: warning: no trend for %s: %v\n", w.Cell, err)
			continue
		}
		if d.History == nil {
			d.History = map[string][]report.Run{}
		}
		d.History[w.Cell] = historyRuns(w.Cell, lines)
	}
}

// compareAttachHistory gives `perfgate compare` the trend when --baseline
// is a profile directory (baselines/<profile>), which holds history/.
func compareAttachHistory(d *report.Data, baselineArg string, warn io.Writer) {
	if fi, err := os.Stat(baselineArg); err != nil || !fi.IsDir() {
		return
	}
	dir := filepath.Clean(baselineArg)
	gateAttachHistory(d, filepath.Dir(dir), filepath.Base(dir), warn)
}

// historyRuns turns a cell's history lines into the report's runs. The
// lines go through history.FromLines, as for `perfgate history`: only the
// sessions of the newest workload hash are points of the series, and each
// session's summary is on the verdict's test scale, so a run's centre is
// exp(mean) for a relative metric (the geometric mean of its trial
// values, as verdict.Arm.Centre) and the mean for an absolute one.
func historyRuns(cell string, lines []baseline.HistoryLine) []report.Run {
	c := history.FromLines(cell, lines)
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
