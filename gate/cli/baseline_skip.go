package cli

import (
	"errors"

	"github.com/perfgate/perfgate/gate/baseline"
)

// withoutSkipped returns runs less those whose source is in skipped.
func withoutSkipped(runs []baseline.Run, skipped []baseline.Skip) []baseline.Run {
	drop := map[string]bool{}
	for _, s := range skipped {
		drop[s.Source] = true
	}
	var out []baseline.Run
	for _, r := range runs {
		if !drop[r.Source] {
			out = append(out, r)
		}
	}
	return out
}

// skipError joins the skipped runs' reasons, one per line, each naming
// its file.
func skipError(skipped []baseline.Skip) error {
	errs := make([]error, len(skipped))
	for i, s := range skipped {
		errs[i] = s
	}
	return errors.Join(errs...)
}
