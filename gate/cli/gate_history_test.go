package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/git"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trust"
)

// historyGate is a store with promotions made through `baseline update`
// and a candidate directory, judged with `gate --from`.
type historyGate struct {
	t               *testing.T
	dir, store, cfg string
	// environ, when set, is the whole environment the gate runs in
	// (Streams.Environ); nil: the process's.
	environ func() []string
}

func newHistoryGate(t *testing.T, yaml string) *historyGate {
	t.Helper()
	h := &historyGate{t: t, dir: t.TempDir()}
	h.store = filepath.Join(h.dir, "baselines")
	h.cfg = filepath.Join(h.dir, "perfgate.yaml")
	if err := os.WriteFile(h.cfg, []byte("profile: p\n"+yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// promote records a 10-trial run of cell "a" whose TPOT is factor times
// the usual, as commit sha, with the default gate rules (or those of the
// configuration file in extra's --config).
func (h *historyGate) promote(sha string, factor float64, extra ...string) {
	h.t.Helper()
	from := writeResult(h.t, filepath.Join(h.dir, "run-"+sha, "a.json"), compareTestResult("a", 10, factor))
	args := append([]string{"baseline", "update", "--from", from, "--profile", "p", "--baselines", h.store, "--git-sha", sha, "--git-ref", "refs/heads/main"}, extra...)
	if code, _, errs := runCLI(args...); code != ExitPass {
		h.t.Fatalf("promote %s: %s", sha, errs)
	}
}

// gate judges a candidate whose TPOT is factor times the usual.
func (h *historyGate) gate(factor float64, extra ...string) (ExitCode, string, string) {
	h.t.Helper()
	cand := filepath.Join(h.dir, "cand")
	writeResult(h.t, filepath.Join(cand, "a.json"), compareTestResult("a", 10, factor))
	out := filepath.Join(h.dir, "out")
	args := append([]string{"gate", "--config", h.cfg, "--baselines", h.store, "--from", cand, "-o", out}, extra...)
	var env []string
	if h.environ != nil {
		env = h.environ()
	}
	code, _, errs := mainIn(context.Background(), env, args...)
	comment, _ := os.ReadFile(filepath.Join(out, "comment.md"))
	return code, string(comment), errs
}

func sha(c byte) string { return strings.Repeat(string(c), 40) }

// A PR that raises its tolerance to 50 % still fails on a 10 %
// regression, and the comment says the looser rule was ignored.
func TestGateAppliesTheBaselinesStricterRules(t *testing.T) {
	t.Parallel()
	// Six nights of history, so the baseline's between-session noise is
	// known and a 10 % change is decidable.
	h := newHistoryGate(t, "policy:\n  tolerances: {tpot_ms.p50: 0.5}\n")
	// Control: baselines promoted under the loose rule itself let 10 % pass.
	for i := 0; i < 6; i++ {
		h.promote(sha(byte('a'+i)), 1, "--config", h.cfg)
	}
	if code, comment, errs := h.gate(1.10); code != ExitPass || !strings.Contains(comment, "Pass") {
		t.Fatalf("loose rule promoted from the trusted side: exit %d, want a pass\n%s%s", code, comment, errs)
	}
	h.store = filepath.Join(h.dir, "trusted")
	for i := 0; i < 6; i++ {
		h.promote(sha(byte('a'+i)), 1)
	}
	code, comment, errs := h.gate(1.10)
	if code != ExitRegression {
		t.Fatalf("exit %d, want 1\n%s%s", code, comment, errs)
	}
	if !strings.Contains(comment, "ignored a looser rule: this change raises the tolerance of tpot\\_ms.p50 to 50.0 %; the baseline's 3.0 % applies") {
		t.Errorf("comment does not say the looser rule was ignored:\n%s", comment)
	}
}

func TestGateRefusesABaselineRecordedInAPullRequest(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	// The drift guard is off on the trusted side too (promoted under
	// the same configuration), so only the merge base decides.
	h := newHistoryGate(t, "history:\n  reference_days: 0\n")
	h.promote(sha('a'), 1, "--config", h.cfg)
	h.promote(sha('b'), 1, "--config", h.cfg)
	h.promote(sha('c'), 1.10, "--config", h.cfg)
	code, comment, errs := h.gate(1.10)
	if code != ExitPass || !strings.Contains(comment, "judged against the newest baseline: commit ccccccc, promoted") {
		t.Fatalf("against the newest: exit %d\n%s%s", code, comment, errs)
	}
	code, comment, errs = h.gate(1.10, "--merge-base", sha('b'))
	if code != ExitRegression || !strings.Contains(comment, "judged against the baseline of the merge base: commit bbbbbbb") {
		t.Errorf("against the merge base: exit %d\n%s%s", code, comment, errs)
	}
	code, comment, _ = h.gate(1.10, "--merge-base", sha('f'))
	if code != ExitPass || !strings.Contains(comment, "no history entry at or before the merge base fffffff") {
		t.Errorf("unknown merge base: exit %d\n%s", code, comment)
	}
}

// Nightly promotions each a little slower: the candidate passes against
// the newest baseline and fails against the history's oldest runs,
// naming them.
func TestGateDriftGuard(t *testing.T) {
	t.Parallel()
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
	// Turned off by the change itself: the trusted side's guard applies,
	// and the comment says the looser setting was ignored (issue #20).
	off := newHistoryGate(t, "history:\n  reference_days: 0\n")
	off.store = h.store
	if code, comment, errs := off.gate(1.10); code != ExitRegression || !strings.Contains(comment, "ignored a looser setting: this change turns the drift guard off") {
		t.Errorf("drift guard off in the change: exit %d\n%s%s", code, comment, errs)
	}
	// Off on the trusted side (promoted under that configuration): the
	// step alone passes.
	trusted := newHistoryGate(t, "history:\n  reference_days: 0\n")
	for i, f := range []float64{1, 1, 1, 1.02, 1.04, 1.06, 1.08} {
		trusted.promote(sha(byte('a'+i)), f, "--config", trusted.cfg)
	}
	if code, comment, errs := trusted.gate(1.10); code != ExitPass {
		t.Errorf("drift guard off on the trusted side: exit %d\n%s%s", code, comment, errs)
	}
}

// A baseline kept with --accept-noisy says so in every comment against it.
func TestGateSaysTheBaselineIsNoisy(t *testing.T) {
	t.Parallel()
	h := newHistoryGate(t, "")
	from := writeResult(t, filepath.Join(h.dir, "spiky", "a.json"), spread40("a", 10))
	if code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", h.store, "--accept-noisy"); code != ExitPass {
		t.Fatal(errs)
	}
	_, comment, _ := h.gate(1)
	if !strings.Contains(comment, "the baseline of a was promoted with a warning") || !strings.Contains(comment, "tpot\\_ms.p50 spread across trials") {
		t.Errorf("comment does not say the baseline is noisy:\n%s", comment)
	}
}

// Inside a git checkout, a change under baselines/<profile>/ since the
// merge base is a re-recorded baseline.
func TestGateRefusesBaselinesChangedSinceTheMergeBase(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", repo}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	dir := filepath.Join(repo, "baselines", "p")
	writeResult(t, filepath.Join(dir, "a.json"), compareTestResult("a", 10, 1))
	run("add", ".")
	run("commit", "-qm", "base")
	base := run("rev-parse", "HEAD")
	g, ok := git.Find(context.Background(), dir, os.Environ())
	if !ok {
		t.Fatal("the temporary repository is not found as a checkout")
	}
	refuse := func() error {
		changed, err := g.ChangedSince(context.Background(), dir, base)
		return trust.RefuseRerecorded(dir, base, changed, err)
	}
	if err := refuse(); err != nil {
		t.Fatalf("unchanged baselines refused: %v", err)
	}
	writeResult(t, filepath.Join(dir, "a.json"), compareTestResult("a", 10, 0.9))
	run("commit", "-qam", "re-record in the PR")
	err := refuse()
	if err == nil || !strings.Contains(err.Error(), "re-records baselines") || !strings.Contains(err.Error(), "a.json") {
		t.Errorf("error %v, want the re-recorded baseline named", err)
	}
}

// A change of level promoted with --accept-change is not drift: the gate
// after it passes, and the history line says why.
func TestGateDriftGuardRespectsAnAcceptedChange(t *testing.T) {
	t.Parallel()
	h := newHistoryGate(t, "")
	for i := 0; i < 4; i++ {
		h.promote(sha(byte('a'+i)), 1)
	}
	h.promote(sha('e'), 1.10, "--accept-change", "new scheduler: decode 10 % slower by design")
	for i := 0; i < 4; i++ {
		h.promote(sha(byte('f'+i)), 1.10)
	}
	if code, comment, errs := h.gate(1.10); code != ExitPass || strings.Contains(comment, "cumulative drift") || !strings.Contains(comment, "the 5 sessions") {
		t.Errorf("after an accepted change: exit %d\n%s%s", code, comment, errs)
	}
	lines, err := baseline.Store{Root: h.store}.ReadHistory("p", "a")
	if err != nil || lines[4].Accepted != "new scheduler: decode 10 % slower by design" {
		t.Errorf("history line 5: %+v, %v", lines[4], err)
	}
}
