package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// gateAndCompare judges candidate factor against h's store with gate
// --from and with compare, and returns both exit codes and comparisons.
func (h *historyGate) gateAndCompare(factor float64) (ExitCode, ExitCode, *verdict.Comparison, *verdict.Comparison) {
	h.t.Helper()
	gcode, _, gerr := h.gate(factor)
	var fromGate verdict.Comparison
	data, err := os.ReadFile(filepath.Join(h.dir, "out", "comparison.json"))
	if err != nil {
		h.t.Fatalf("gate wrote no comparison (exit %d): %v\n%s", gcode, err, gerr)
	}
	if err := json.Unmarshal(data, &fromGate); err != nil {
		h.t.Fatal(err)
	}
	ccode, out, cerr := runCLI("compare", "--config", h.cfg, "--baseline", filepath.Join(h.store, "p"), "--candidate", filepath.Join(h.dir, "cand"), "--format", "json")
	var fromCompare verdict.Comparison
	if err := json.NewDecoder(bytes.NewReader([]byte(out))).Decode(&fromCompare); err != nil {
		h.t.Fatalf("compare (exit %d): %v\n%s", ccode, err, cerr)
	}
	return gcode, ccode, &fromGate, &fromCompare
}

// gate --from and compare judge the same files alike on every history
// fixture of gate_history_test.go: the same session selection, trusted
// rules and settings, drift guard and notes, so the same verdict, cells
// and warnings (issue #19: gate --from exited 1 under the trusted 3 %
// rule over 6 sessions while compare exited 4 under the PR's 50 %
// tolerance on the newest file only).
func TestGateAndCompareAgree(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		yaml    string
		history []float64 // TPOT factor of each promotion
		extra   []string  // flags of the promotions
		cand    float64
		want    verdict.Outcome
	}{
		{"stricter stored rule", "policy:\n  tolerances: {tpot_ms.p50: 0.5}\n", []float64{1, 1, 1, 1, 1, 1}, nil, 1.10, verdict.Regression},
		{"loose rule promoted", "policy:\n  tolerances: {tpot_ms.p50: 0.5}\n", []float64{1, 1, 1, 1, 1, 1}, []string{"--config"}, 1.10, verdict.Pass},
		{"newest session", "history:\n  reference_days: 0\n", []float64{1, 1, 1.10}, []string{"--config"}, 1.10, verdict.Inconclusive},
		{"drift", "", []float64{1, 1, 1, 1.02, 1.04, 1.06, 1.08}, nil, 1.10, verdict.Regression},
		{"drift guard off, stored on", "history:\n  reference_days: 0\n", []float64{1, 1, 1, 1.02, 1.04, 1.06, 1.08}, nil, 1.10, verdict.Regression},
		// x2: beyond the stored default between-session noise (8 %) the
		// looser checked-out setting must not replace.
		{"assumed between loosened", "policy:\n  assumed_between: {\"*\": 0.5}\n", []float64{1}, nil, 2, verdict.Regression},
		{"alpha loosened", "policy:\n  alpha: 1e-9\n", []float64{1}, nil, 2, verdict.Regression},
		{"one session", "", []float64{1}, nil, 1.0, verdict.Inconclusive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHistoryGate(t, tc.yaml)
			for i, f := range tc.history {
				var extra []string
				if len(tc.extra) > 0 {
					extra = []string{"--config", h.cfg}
				}
				h.promote(sha(byte('a'+i)), f, extra...)
			}
			gcode, ccode, g, c := h.gateAndCompare(tc.cand)
			if g.Verdict != tc.want {
				t.Errorf("gate --from: %s (exit %d), want %s\n%q", g.Verdict, gcode, tc.want, g.Warnings)
			}
			// compare exits 4 on inconclusive where gate exits 0 without
			// --fail-on-inconclusive; otherwise the codes agree.
			if gcode != ccode && !(g.Verdict == verdict.Inconclusive && ccode == ExitInconclusive) {
				t.Errorf("gate --from exit %d, compare exit %d", gcode, ccode)
			}
			if g.Verdict != c.Verdict || g.Regressions != c.Regressions {
				t.Errorf("verdicts differ: gate %s (%d regressions), compare %s (%d)", g.Verdict, g.Regressions, c.Verdict, c.Regressions)
			}
			if len(g.Cells) != len(c.Cells) {
				t.Fatalf("gate judged %d cells, compare %d", len(g.Cells), len(c.Cells))
			}
			for i := range g.Cells {
				gc, cc := g.Cells[i], c.Cells[i]
				if gc.Metric != cc.Metric || gc.Outcome != cc.Outcome || gc.Gated != cc.Gated || gc.Tolerance != cc.Tolerance || gc.Change != cc.Change {
					t.Errorf("cell %s/%s: gate %+v\ncompare %+v", gc.Workload, gc.Metric, gc, cc)
				}
			}
			if !equalStrings(g.Warnings, c.Warnings) {
				t.Errorf("warnings differ:\ngate    %q\ncompare %q", g.Warnings, c.Warnings)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
