package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// historyGate is a store with promotions made through `baseline update`
// and a candidate directory, judged with `gate --from`.
type historyGate struct {
	t               *testing.T
	dir, store, cfg string
}

func newHistoryGate(t *testing.T, yaml string) *historyGate {
	t.Helper()
	old := gateGetenv
	gateGetenv = func(string) string { return "" }
	t.Cleanup(func() { gateGetenv = old })
	h := &historyGate{t: t, dir: t.TempDir()}
	h.store = filepath.Join(h.dir, "baselines")
	h.cfg = filepath.Join(h.dir, "perfgate.yaml")
	if err := os.WriteFile(h.cfg, []byte("profile: p\n"+yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// promote records a 10-trial run of cell "a" whose TPOT is factor times
// the usual, as commit sha, with the default gate rules.
func (h *historyGate) promote(sha string, factor float64) {
	h.t.Helper()
	from := writeResult(h.t, filepath.Join(h.dir, "run-"+sha, "a.json"), compareTestResult("a", 10, factor))
	if code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", h.store, "--git-sha", sha, "--git-ref", "refs/heads/main"); code != ExitPass {
		h.t.Fatalf("promote %s: %s", sha, errs)
	}
}

// gate judges a candidate whose TPOT is factor times the usual.
func (h *historyGate) gate(factor float64, extra ...string) (ExitCode, string, string) {
	h.t.Helper()
	cand := filepath.Join(h.dir, "cand")
	writeResult(h.t, filepath.Join(cand, "a.json"), compareTestResult("a", 10, factor))
	out := filepath.Join(h.dir, "out")
	code, _, errs := runCLI(append([]string{"gate", "--config", h.cfg, "--baselines", h.store, "--from", cand, "-o", out}, extra...)...)
	comment, _ := os.ReadFile(filepath.Join(out, "comment.md"))
	return code, string(comment), errs
}

func sha(c byte) string { return strings.Repeat(string(c), 40) }

// A PR that raises its tolerance to 50 % still fails on a 10 %
// regression, and the comment says the looser rule was ignored.
func TestGateAppliesTheBaselinesStricterRules(t *testing.T) {
	h := newHistoryGate(t, "policy:\n  tolerances: {tpot_ms.p50: 0.5}\n")
	// Control: a baseline without stored rules lets the loosened rule pass.
	writeResult(t, filepath.Join(h.store, "p", "a.json"), compareTestResult("a", 10, 1))
	if code, comment, errs := h.gate(1.10); code == ExitRegression {
		t.Fatalf("without stored rules: exit %d, want the 50 %% tolerance to let 10 %% pass\n%s%s", code, comment, errs)
	}
	h.promote(sha('a'), 1)
	code, comment, errs := h.gate(1.10)
	if code != ExitRegression {
		t.Fatalf("exit %d, want 1\n%s%s", code, comment, errs)
	}
	if !strings.Contains(comment, "ignored a looser rule: this change raises the tolerance of tpot\\_ms.p50 to 50.0 %; the baseline's 3.0 % applies") {
		t.Errorf("comment does not say the looser rule was ignored:\n%s", comment)
	}
}

func TestGateRefusesABaselineRecordedInAPullRequest(t *testing.T) {
	h := newHistoryGate(t, "")
	b := compareTestResult("a", 10, 1)
	b.Provenance = &result.Provenance{GitSHA: sha('a'), GitRef: "refs/pull/7/merge"}
	writeResult(t, filepath.Join(h.store, "p", "a.json"), b)
	code, _, errs := h.gate(1)
	if code != ExitInvalid || !strings.Contains(errs, "re-recorded inside a pull request is refused") || !strings.Contains(errs, "--allow-baseline-change") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if code, _, errs := h.gate(1, "--allow-baseline-change"); code != ExitPass {
		t.Errorf("--allow-baseline-change: exit %d %s", code, errs)
	}
}

// The PR is judged against its merge base's history entry, not a newer
// baseline that already contains the slowdown; the comment names it.
func TestGateJudgesAgainstTheMergeBase(t *testing.T) {
	h := newHistoryGate(t, "history:\n  reference_days: 0\n")
	h.promote(sha('a'), 1)
	h.promote(sha('b'), 1)
	h.promote(sha('c'), 1.10)
	code, comment, errs := h.gate(1.10)
	if code != ExitPass || !strings.Contains(comment, "judged against the newest baseline: commit ccccccc, promoted") {
		t.Fatalf("against the newest: exit %d\n%s%s", code, comment, errs)
	}
	code, comment, errs = h.gate(1.10, "--merge-base", sha('b'))
	if code != ExitRegression || !strings.Contains(comment, "judged against the baseline of the merge base: commit bbbbbbb") {
		t.Errorf("against the merge base: exit %d\n%s%s", code, comment, errs)
	}
	code, comment, _ = h.gate(1.10, "--merge-base", sha('f'))
	if code != ExitPass || !strings.Contains(comment, "the merge base fffffff has no history entry") {
		t.Errorf("unknown merge base: exit %d\n%s", code, comment)
	}
}

// Nightly promotions each a little slower: the candidate passes against
// the newest baseline and fails against the history's oldest runs,
// naming them.
func TestGateDriftGuard(t *testing.T) {
	h := newHistoryGate(t, "")
	for i, f := range []float64{1, 1, 1, 1.02, 1.04, 1.06, 1.08} {
		h.promote(sha(byte('a'+i)), f)
	}
	code, comment, errs := h.gate(1.10)
	if code != ExitRegression {
		t.Fatalf("exit %d, want the drift guard to fail\n%s%s", code, comment, errs)
	}
	if !strings.Contains(comment, "cumulative drift") || !strings.Contains(comment, "3 runs promoted") || !strings.Contains(comment, "aaaaaaa..ccccccc") {
		t.Errorf("comment does not name the reference window:\n%s", comment)
	}
	// Off by configuration: the step alone passes.
	off := newHistoryGate(t, "history:\n  reference_days: 0\n")
	off.store = h.store
	if code, comment, errs := off.gate(1.10); code != ExitPass {
		t.Errorf("drift guard off: exit %d\n%s%s", code, comment, errs)
	}
}
