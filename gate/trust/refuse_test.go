package trust

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestRefuse: a pull request may not set its own baseline, by a
// promotion from its ref or by a change under the store since the merge
// base; a diff git could not make refuses too and says how to fetch.
func TestRefuse(t *testing.T) {
	promoted := func(ref string) *result.Result {
		r := &result.Result{Provenance: &result.Provenance{GitRef: ref}}
		r.Workload.Cell = "chat"
		return r
	}
	const base = "0123456789abcdef"
	for _, tc := range []struct {
		name string
		err  error
		want []string // "" for no refusal
	}{
		{"promoted on main", RefusePromotedInPR("baselines/p", []*result.Result{promoted("refs/heads/main"), {}}), nil},
		{"promoted in a PR", RefusePromotedInPR("baselines/p", []*result.Result{promoted("refs/heads/main"), promoted("refs/pull/7/merge")}),
			[]string{"baselines/p/chat.json", "refs/pull/7/merge", "--allow-baseline-change"}},
		{"unchanged", RefuseRerecorded("baselines/p", base, nil, nil), nil},
		{"re-recorded", RefuseRerecorded("baselines/p", base, []string{"baselines/p/chat.json"}, nil),
			[]string{"re-records baselines", "baselines/p/chat.json", "0123456", "--allow-baseline-change"}},
		{"no diff", RefuseRerecorded("baselines/p", base, nil, errors.New("bad object")),
			[]string{"could not check", "bad object", "fetch-depth: 0", "git fetch origin " + base}},
	} {
		if (tc.err != nil) != (tc.want != nil) {
			t.Errorf("%s: error %v, want a refusal: %v", tc.name, tc.err, tc.want != nil)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, tc.err, w)
			}
		}
	}
}
