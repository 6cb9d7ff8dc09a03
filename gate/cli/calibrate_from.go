package cli

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/perfgate/perfgate/gate/noise"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// calibrateRead reads an earlier calibration's sessions, DIR/session-*/
// in name order, for `perfgate calibrate --from` and init; a removed
// directory is simply not a session. noise.Sessions checks them and
// rebuilds the cells' manifests.
func calibrateRead(dir string) ([]*workload.Manifest, []map[string]*result.Result, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "session-*"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	var files []noise.SessionFiles
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		rs, err := result.ReadDir(p)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, noise.SessionFiles{Dir: p, Results: rs})
	}
	return noise.Sessions(dir, files)
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
