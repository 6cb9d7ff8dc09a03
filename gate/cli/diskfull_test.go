package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// A disk that fills after the measurement loses the files, not the
// verdict: it is printed, a regression still exits 1, and a pass whose
// record could not be written exits 2 saying so (issue #20 item 7: exit 2
// with nothing on stdout).
func TestGateDiskFullStillPrintsTheVerdict(t *testing.T) {
	h := newHistoryGate(t, "")
	h.promote(sha('a'), 1)
	h.promote(sha('b'), 1)
	full := func(path string) error {
		return fmt.Errorf("write %s: %w", path, syscall.ENOSPC)
	}
	oldR, oldF := gateWriteResult, gateWriteFile
	gateWriteResult = func(path string, _ *result.Result) error { return full(path) }
	gateWriteFile = func(path string, _ []byte) error { return full(path) }
	t.Cleanup(func() { gateWriteResult, gateWriteFile = oldR, oldF })
	judge := func(factor float64) (ExitCode, string, string) {
		cand := filepath.Join(h.dir, fmt.Sprintf("cand-%v", factor))
		writeResult(t, filepath.Join(cand, "a.json"), compareTestResult("a", 10, factor))
		return runCLI("gate", "--config", h.cfg, "--baselines", h.store, "--from", cand, "-o", filepath.Join(h.dir, "out"))
	}
	code, out, errs := judge(1.5)
	if code != ExitRegression || !strings.Contains(strings.ToLower(out), "regression") || !strings.Contains(errs, "no space left on device") {
		t.Errorf("regression on a full disk: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = judge(1)
	if code != ExitInvalid || !strings.Contains(strings.ToLower(out), "pass") || !strings.Contains(errs, "the verdict above is pass, but 5 output file(s) could not be written") {
		t.Errorf("pass on a full disk: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
