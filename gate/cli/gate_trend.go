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
		d.History[w.Cell] = historyRuns(lines)
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

// historyRuns summarises each history line as the comparison summarises
// an arm (verdict.Arm.Centre): the geometric mean of a relative metric's
// trial values, the arithmetic mean of an absolute one's or of values
// that are not all positive.
func historyRuns(lines []baseline.HistoryLine) []report.Run {
	runs := make([]report.Run, 0, len(lines))
	for _, l := range lines {
		vals := map[string][]float64{}
		for _, t := range l.Trials {
			for id, v := range t {
				vals[id] = append(vals[id], v)
			}
		}
		centre := map[string]float64{}
		for id, v := range vals {
			centre[id] = centreOf(v, verdict.Absolute(id))
		}
		runs = append(runs, report.Run{Commit: l.GitSHA, PromotedAt: l.PromotedAt, Centre: centre})
	}
	return runs
}

func centreOf(v []float64, abs bool) float64 {
	sum, logs, positive := 0.0, 0.0, true
	for _, x := range v {
		sum += x
		if x > 0 {
			logs += math.Log(x)
		} else {
			positive = false
		}
	}
	n := float64(len(v))
	if abs || !positive {
		return sum / n
	}
	return math.Exp(logs / n)
}
