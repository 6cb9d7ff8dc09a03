package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// noisePriors returns the calibrated noise of the baselines in dir, a
// profile's directory of a baselines store (<root>/<profile>), as the
// verdict's priors: the noise file `perfgate calibrate` wrote there, for
// the cells of baselines whose workload has not changed since (the cells
// it leaves out are named on errOut). Without a noise file it returns nil,
// and the verdict assumes its documented default between-session noise.
func noisePriors(dir string, baselines []*result.Result, errOut io.Writer) (verdict.Priors, error) {
	dir = filepath.Clean(dir)
	if _, err := os.Stat(filepath.Join(dir, "calibration", "noise.json")); err != nil {
		return nil, nil
	}
	current := make(map[string]string, len(baselines))
	for _, b := range baselines {
		current[b.Workload.Cell] = b.Workload.Hash
	}
	p, stale, path, err := baseline.Store{Root: filepath.Dir(dir)}.CalibrationPriors(filepath.Base(dir), current)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	if len(stale) > 0 {
		fmt.Fprintf(errOut, "perfgate: warning: %s: the workload of %s changed since the calibration; its noise is not used (run perfgate calibrate again)\n", path, strings.Join(stale, ", "))
	}
	return p, nil
}
