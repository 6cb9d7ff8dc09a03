package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/verdict"
)

// attachTrend gives the report the promoted runs of each compared
// workload, so the list of regressed and undecided metrics shows a trend.
// cell returns a workload's history, nil when it has none. gate passes the
// cells it already read for its verdict (gateHistory.cells), so no history
// file is read twice.
func attachTrend(d *report.Data, cell func(name string) *history.Cell) {
	for _, w := range d.Comparison.Workloads {
		if w.Status != verdict.Compared {
			continue
		}
		c := cell(w.Cell)
		if c == nil {
			continue
		}
		if d.History == nil {
			d.History = map[string][]report.Run{}
		}
		d.History[w.Cell] = c.Runs()
	}
}

// readTrend is attachTrend from baselines/<profile>/history/<cell>.jsonl,
// for `perfgate compare`. History is context, not judgement there: a cell
// without a history file has no trend, and a history file that does not
// parse is named in a warning (file and line) and left out rather than
// failing a comparison whose verdict does not depend on it.
func readTrend(d *report.Data, root, profile string, warn io.Writer) {
	store := baseline.Store{Root: root}
	attachTrend(d, func(name string) *history.Cell {
		lines, err := store.ReadHistory(profile, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			fmt.Fprintf(warn, "perfgate: warning: no trend for %s: %v\n", name, err)
			return nil
		}
		return history.FromLines(name, lines)
	})
}

// compareAttachHistory gives `perfgate compare` the trend when --baseline
// is a profile directory (baselines/<profile>), which holds history/.
func compareAttachHistory(d *report.Data, baselineArg string, warn io.Writer) {
	if fi, err := os.Stat(baselineArg); err != nil || !fi.IsDir() {
		return
	}
	dir := filepath.Clean(baselineArg)
	readTrend(d, filepath.Dir(dir), filepath.Base(dir), warn)
}
