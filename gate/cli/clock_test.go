package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommandsReadTheInjectedClock: the dates a command records and the
// ages it reports come from Streams.Clock, not the machine's: a baseline
// promoted at T0 is dated T0, and gate and compare, run 30 days later,
// both name it "30 days ago". Without the injected clock the age would be
// whatever the machine's date makes it.
func TestCommandsReadTheInjectedClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	at := func(tm time.Time) func() time.Time { return func() time.Time { return tm } }
	h := newHistoryGate(t, "")
	run := func(clock func() time.Time, args ...string) (ExitCode, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Clock: clock})
		return code, out.String(), errb.String()
	}
	from := writeResult(t, filepath.Join(h.dir, "run", "a.json"), compareTestResult("a", 10, 1))
	if code, out, errs := run(at(t0), "baseline", "update", "--from", from, "--profile", "p", "--baselines", h.store, "--git-sha", sha('a')); code != ExitPass {
		t.Fatalf("baseline update: exit %d\n%s%s", code, out, errs)
	}
	stored, err := os.ReadFile(filepath.Join(h.store, "p", "a.json"))
	if err != nil || !strings.Contains(string(stored), `"promoted_at": "2026-11-01T12:00:00Z"`) {
		t.Errorf("the baseline is not dated by the clock (%v):\n%.600s", err, stored)
	}

	later := at(t0.Add(30 * 24 * time.Hour))
	const want = "promoted 2026-11-01, 30 days ago"
	cand := writeResult(t, filepath.Join(h.dir, "cand", "a.json"), compareTestResult("a", 10, 1))
	out := filepath.Join(h.dir, "out")
	code, stdout, errs := run(later, "gate", "--config", h.cfg, "--baselines", h.store, "--from", filepath.Dir(cand), "-o", out)
	comment, _ := os.ReadFile(filepath.Join(out, "comment.md"))
	if code == ExitInvalid || code == ExitRunFailed || !strings.Contains(string(comment), want) || !strings.Contains(stdout, want) {
		t.Errorf("gate: exit %d, no %q\ncomment:\n%s\nstderr:\n%s", code, want, comment, errs)
	}
	code, stdout, errs = run(later, "compare", "--config", h.cfg, "--baseline", filepath.Join(h.store, "p"), "--candidate", filepath.Dir(cand))
	if code == ExitInvalid || code == ExitRunFailed || !strings.Contains(stdout, want) {
		t.Errorf("compare: exit %d, no %q\nstdout:\n%s\nstderr:\n%s", code, want, stdout, errs)
	}
}
