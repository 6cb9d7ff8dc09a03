package noise

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// res is a complete result of cell with workload hash h and trials.min 4.
func res(cell, h string) *result.Result {
	r := &result.Result{Complete: true}
	r.Workload.Cell, r.Workload.Name, r.Workload.Hash = cell, cell, h
	r.Workload.Spec = json.RawMessage(`{"trials":{"min":4}}`)
	return r
}

// TestSessions: what a calibration may be fitted from, and what names
// the session to remove when it may not.
func TestSessions(t *testing.T) {
	ok := func(i string) SessionFiles {
		return SessionFiles{Dir: "cal/session-0" + i, Results: []*result.Result{res("b", "hb"), res("a", "ha")}}
	}
	cut := res("a", "ha")
	cut.Complete, cut.IncompleteReason = false, "the server died"
	for _, tc := range []struct {
		name  string
		files []SessionFiles
		want  string // "" for a fit
	}{
		{"three sessions", []SessionFiles{ok("1"), ok("2"), ok("3")}, ""},
		{"an empty directory is no session", []SessionFiles{ok("1"), {Dir: "cal/session-09"}, ok("2"), ok("3")}, ""},
		{"two sessions", []SessionFiles{ok("1"), {Dir: "cal/session-02"}, ok("3")}, "cal: 2 session directories with results (session-NN/): a calibration needs at least 3"},
		{"incomplete", []SessionFiles{ok("1"), {Dir: "cal/session-02", Results: []*result.Result{cut}}, ok("3")},
			"cal/session-02/a.json: the session is incomplete (the server died): a calibration fits complete sessions only; remove cal/session-02"},
		{"hash changed", []SessionFiles{ok("1"), ok("2"), {Dir: "cal/session-03", Results: []*result.Result{res("a", "other")}}},
			`cal/session-03: workload cell "a" has hash other, but cal/session-01 has ha`},
		{"one cell twice", []SessionFiles{{Dir: "cal/session-01", Results: []*result.Result{res("a", "ha"), res("a", "ha")}}, ok("2"), ok("3")},
			`cal/session-01: workload cell "a" is in two result files`},
	} {
		ms, sessions, err := Sessions("cal", tc.files)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(sessions) != 3 || len(ms) != 2 || ms[0].Cell != "a" || ms[1].Cell != "b" || ms[0].Hash != "ha" || ms[0].Trials.Min != 4 {
			t.Errorf("%s: %d sessions, manifests %+v", tc.name, len(sessions), ms)
		}
	}
}
