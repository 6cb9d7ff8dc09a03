package cli

import (
	"bytes"
	"context"
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
	t.Parallel()
	h := newHistoryGate(t, "")
	h.promote(sha('a'), 1)
	h.promote(sha('b'), 1)
	full := func(path string) error {
		return fmt.Errorf("write %s: %w", path, syscall.ENOSPC)
	}
	judge := func(factor float64) (ExitCode, string, string) {
		cand := filepath.Join(h.dir, fmt.Sprintf("cand-%v", factor))
		writeResult(t, filepath.Join(cand, "a.json"), compareTestResult("a", 10, factor))
		var out, errb bytes.Buffer
		// The disk is full for this gate's output files alone.
		code := Main(context.Background(), []string{"gate", "--config", h.cfg, "--baselines", h.store, "--from", cand, "-o", filepath.Join(h.dir, "out")},
			Streams{Out: &out, Err: &errb,
				writeResult: func(path string, _ *result.Result) error { return full(path) },
				writeFile:   func(path string, _ []byte) error { return full(path) }})
		return code, out.String(), errb.String()
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
