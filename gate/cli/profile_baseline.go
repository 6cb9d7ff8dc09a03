package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/merge"
)

// promoteOps copies the op summaries of a run's profiled trials
// (<from>/profiles/ops/<cell>.json, written by gate with profiling) beside
// the baselines promoted from that run (<profile>/ops/<cell>.json), so a
// later gate diffs its profile against them. Only cells whose result was
// written get one; a summary that does not parse is a warning naming it:
// the baseline is promoted without it.
func promoteOps(w io.Writer, store baseline.Store, profile, from string, written []string) []string {
	if st, err := os.Stat(from); err != nil || !st.IsDir() {
		return nil // a single result file: no run directory around it
	}
	if filepath.Base(filepath.Clean(from)) == merge.ResultsDir {
		from = filepath.Dir(filepath.Clean(from)) // the run's results/ given
	}
	dir := filepath.Join(from, "profiles", "ops")
	des, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w, "perfgate: warning: op summaries in %s: %v\n", dir, err)
		}
		return nil
	}
	promoted := map[string]bool{}
	for _, p := range written {
		promoted[p] = true
	}
	var out []string
	for _, de := range des {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, de.Name())
		ops, err := baseline.ReadOpsFile(path)
		if err != nil {
			fmt.Fprintf(w, "perfgate: warning: not promoting the op summary %v\n", err)
			continue
		}
		if !promoted[store.Path(profile, ops.Cell)] {
			continue
		}
		dst := store.OpsPath(profile, ops.Cell)
		if err := baseline.WriteOpsFile(dst, ops); err != nil {
			fmt.Fprintf(w, "perfgate: warning: %v\n", err)
			continue
		}
		out = append(out, dst)
	}
	return out
}
