package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// calibrateRead reads an earlier calibration's sessions, DIR/session-*/
// in name order, for `perfgate calibrate --from`. Each session directory
// holds result files; a removed directory is simply not a session. The
// cells' manifests are rebuilt from the results (cell, hash, trials.min).
// A cell whose workload hash differs between sessions is refused (its
// sessions measured different workloads), and so is an incomplete result
// file, naming the session to remove.
func calibrateRead(dir string) ([]*workload.Manifest, []map[string]*result.Result, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "session-*"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	var sessions []map[string]*result.Result
	hashes := map[string]string{} // cell -> hash
	from := map[string]string{}   // cell -> the session directory that set the hash
	ms := map[string]*workload.Manifest{}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		rs, err := result.ReadDir(p)
		if err != nil {
			return nil, nil, err
		}
		sess := map[string]*result.Result{}
		for _, r := range rs {
			cell := r.Workload.Cell
			if _, dup := sess[cell]; dup {
				return nil, nil, fmt.Errorf("%s: workload cell %q is in two result files", p, cell)
			}
			if !r.Complete {
				// A session cut short (a dead server, an interrupt) measured
				// fewer trials, or a server in trouble: fitted, it would
				// pass for between-session noise.
				return nil, nil, fmt.Errorf("%s: the session is incomplete (%s): a calibration fits complete sessions only; remove %s to fit the others, or run perfgate calibrate again",
					filepath.Join(p, result.FileName(cell)), orText(r.IncompleteReason, "no reason recorded"), p)
			}
			if h, seen := hashes[cell]; seen && h != r.Workload.Hash {
				return nil, nil, fmt.Errorf("%s: workload cell %q has hash %s, but %s has %s: the sessions measured different workloads", p, cell, r.Workload.Hash, from[cell], h)
			}
			if _, seen := hashes[cell]; !seen {
				hashes[cell], from[cell] = r.Workload.Hash, p
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

func orText(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
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

// calibrateTrialsAsked is the most trials any session ran of a cell: the
// trials per restart of a calibration read back.
func calibrateTrialsAsked(sessions []map[string]*result.Result) int {
	n := 0
	for _, s := range sessions {
		for _, r := range s {
			n = max(n, len(r.Trials))
		}
	}
	return n
}

// calibrateFirst is the first result of the first session, whose
// fingerprint and server version stand for the calibration's.
func calibrateFirst(ms []*workload.Manifest, sessions []map[string]*result.Result) *result.Result {
	for _, s := range sessions {
		for _, m := range ms {
			if r := s[m.Cell]; r != nil {
				return r
			}
		}
	}
	return &result.Result{}
}
