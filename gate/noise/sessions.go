package noise

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// SessionFiles are one calibration session's result files as read from
// its directory (Dir, which errors name).
type SessionFiles struct {
	Dir     string
	Results []*result.Result
}

// Sessions checks a calibration's sessions for the fit (FitSessions) and
// rebuilds the cells' manifests from the results (cell, hash,
// trials.min), sorted by cell. A session without results is not one. A
// cell in two files of one session, an incomplete result (a session cut
// short measured fewer trials, or a server in trouble: fitted, it would
// pass for between-session noise) and a cell whose workload hash differs
// between sessions (they measured different workloads) are refused,
// naming the session to remove; so are fewer than three sessions, from
// which no between-session variance is worth fitting. dir names the
// calibration in that error.
func Sessions(dir string, files []SessionFiles) ([]*workload.Manifest, []map[string]*result.Result, error) {
	var sessions []map[string]*result.Result
	hashes := map[string]string{} // cell -> hash
	from := map[string]string{}   // cell -> the session directory that set the hash
	ms := map[string]*workload.Manifest{}
	for _, f := range files {
		sess := map[string]*result.Result{}
		for _, r := range f.Results {
			cell := r.Workload.Cell
			if _, dup := sess[cell]; dup {
				return nil, nil, fmt.Errorf("%s: workload cell %q is in two result files", f.Dir, cell)
			}
			if !r.Complete {
				why := r.IncompleteReason
				if why == "" {
					why = "no reason recorded"
				}
				return nil, nil, fmt.Errorf("%s: the session is incomplete (%s): a calibration fits complete sessions only; remove %s to fit the others, or run perfgate calibrate again",
					filepath.Join(f.Dir, result.FileName(cell)), why, f.Dir)
			}
			if h, seen := hashes[cell]; seen && h != r.Workload.Hash {
				return nil, nil, fmt.Errorf("%s: workload cell %q has hash %s, but %s has %s: the sessions measured different workloads", f.Dir, cell, r.Workload.Hash, from[cell], h)
			}
			if _, seen := hashes[cell]; !seen {
				hashes[cell], from[cell] = r.Workload.Hash, f.Dir
				ms[cell] = &workload.Manifest{Name: r.Workload.Name, Cell: cell, Hash: r.Workload.Hash, Spec: r.Workload.Spec,
					Trials: workload.TrialBudget{Min: specTrialsMin(r.Workload.Spec)}}
			}
			sess[cell] = r
		}
		if len(sess) > 0 {
			sessions = append(sessions, sess)
		}
	}
	if len(sessions) < 3 {
		return nil, nil, fmt.Errorf("%s: %d session directories with results (session-NN/): a calibration needs at least 3", dir, len(sessions))
	}
	cells := make([]string, 0, len(ms))
	for c := range ms {
		cells = append(cells, c)
	}
	sort.Strings(cells)
	out := make([]*workload.Manifest, len(cells))
	for i, c := range cells {
		out[i] = ms[c]
	}
	return out, sessions, nil
}

// specTrialsMin is trials.min of a result's workload spec, or 0.
func specTrialsMin(spec json.RawMessage) int {
	var s struct {
		Trials struct {
			Min int `json:"min"`
		} `json:"trials"`
	}
	if json.Unmarshal(spec, &s) != nil {
		return 0
	}
	return s.Trials.Min
}
