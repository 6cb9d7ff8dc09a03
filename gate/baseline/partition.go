package baseline

import (
	"errors"
	"fmt"
)

// Skip is a run promotion leaves out and why.
type Skip struct {
	Source string
	Cell   string
	Reason error
}

func (s Skip) Error() string { return fmt.Sprintf("%s: %v", s.Source, s.Reason) }

// Partition splits runs into those Update can promote and those it must
// skip: a run that fails Check, and every run of a workload cell offered
// more than once (which of them is the baseline is not ours to guess:
// merge shards first). One workload with too few valid trials used to
// block every other workload's promotion; now it is named and the others
// are written. The order of runs is kept in both lists.
func Partition(runs []Run, req Requirements) (ok []Run, skipped []Skip) {
	count := map[string]int{}
	first := map[string]string{}
	for _, run := range runs {
		c := run.Result.Workload.Cell
		if count[c] == 0 {
			first[c] = run.Source
		}
		count[c]++
	}
	for _, run := range runs {
		c := run.Result.Workload.Cell
		switch {
		case count[c] > 1:
			other := first[c]
			if other == run.Source {
				other = fmt.Sprintf("%d other file(s)", count[c]-1)
			}
			skipped = append(skipped, Skip{run.Source, c, fmt.Errorf("workload cell %q is also in %s (merge shards first)", c, other)})
		default:
			if err := Check(run.Result, req); err != nil {
				skipped = append(skipped, Skip{run.Source, c, err})
				continue
			}
			ok = append(ok, run)
		}
	}
	return ok, skipped
}

// Without returns runs less those a Skip names (by source file), in order:
// what remains after a later screen (the noise screen) skipped some.
func Without(runs []Run, skipped []Skip) []Run {
	drop := map[string]bool{}
	for _, s := range skipped {
		drop[s.Source] = true
	}
	var out []Run
	for _, r := range runs {
		if !drop[r.Source] {
			out = append(out, r)
		}
	}
	return out
}

// SkipError joins the skipped runs' reasons, one per line, each naming
// its file; nil when nothing was skipped.
func SkipError(skipped []Skip) error {
	errs := make([]error, len(skipped))
	for i, s := range skipped {
		errs[i] = s
	}
	return errors.Join(errs...)
}
