package trust

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// RefusePromotedInPR refuses baselines promoted from a pull request ref: a
// pull request that re-records its own baseline would judge itself. dir is
// the profile's store directory, for the file the error names.
func RefusePromotedInPR(dir string, bs []*result.Result) error {
	for _, b := range bs {
		if b.Provenance != nil && strings.HasPrefix(b.Provenance.GitRef, "refs/pull/") {
			return fmt.Errorf("baseline %s was promoted from the pull request ref %s: a baseline re-recorded inside a pull request is refused (pass --allow-baseline-change, Action input allow-baseline-change, to accept it)",
				filepath.Join(dir, result.FileName(b.Workload.Cell)), b.Provenance.GitRef)
		}
	}
	return nil
}

// RefuseRerecorded refuses any change under the profile's store directory
// dir since the merge base, whatever ref the promotion claims: changed
// are the files git reports changed there. A diff git could not make
// (diffErr) is a refusal too: the gate never trusts baselines it could
// not check, and the error says how to make the merge base available.
func RefuseRerecorded(dir, mergeBase string, changed []string, diffErr error) error {
	if diffErr != nil {
		return fmt.Errorf("could not check the baselines %s against the merge base %s (%v): fetch it (actions/checkout with fetch-depth: 0, or git fetch origin %s)", dir, short7(mergeBase), diffErr, mergeBase)
	}
	if len(changed) > 0 {
		return fmt.Errorf("this change re-records baselines (%s changed since the merge base %s): refused, since a pull request must not set its own baseline (pass --allow-baseline-change, Action input allow-baseline-change, to accept it)",
			strings.Join(changed, ", "), short7(mergeBase))
	}
	return nil
}
