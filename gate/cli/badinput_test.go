package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 20, item 12: values that used to crash or hang are refused up
// front, naming the flag or setting.
func TestBadInputIsRefusedUpFront(t *testing.T) {
	t.Parallel()
	h := newHistoryGate(t, "policy:\n  alpha: 1e-300\n")
	b := writeResult(t, filepath.Join(h.dir, "b", "a.json"), compareTestResult("a", 2, 1))
	c := writeResult(t, filepath.Join(h.dir, "c", "a.json"), compareTestResult("a", 2, 1.2))
	// alpha 1e-300 made every interval infinite, and report writing
	// failed with "json: unsupported value: +Inf".
	code, out, errs := runCLI("compare", "--config", h.cfg, "--baseline", b, "--candidate", c, "--format", "json")
	if code != ExitInvalid || !strings.Contains(errs, "perfgate.yaml:3: policy: alpha 1e-300: must be in [1e-09, 0.5)") || strings.Contains(errs, "+Inf") {
		t.Errorf("compare under alpha 1e-300: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runCLI("gate", "--baselines", h.store, "--from", filepath.Dir(c), "--alpha", "1e-300", "-o", filepath.Join(h.dir, "out"))
	if code != ExitInvalid || !strings.Contains(errs, "--alpha") || !strings.Contains(errs, "must be in [1e-09, 0.5)") {
		t.Errorf("gate --alpha 1e-300: exit %d\n%s", code, errs)
	}
	wl := filepath.Join(h.dir, "w.yaml")
	if err := os.WriteFile(wl, []byte("name: w\ndataset: {kind: random, input_tokens: 10, output_tokens: 5}\nload: {requests: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-w", wl, "-o", filepath.Join(h.dir, "r1"), "--url", "http://127.0.0.1:1", "--ready-timeout", "0"}, "--ready-timeout 0s: must be positive"},
		{[]string{"run", "-w", wl, "-o", filepath.Join(h.dir, "r2"), "--url", "http://127.0.0.1:99999"}, "port 99999: must be 1-65535"},
		{[]string{"gate", "--workloads", wl, "--baselines", h.store, "-o", filepath.Join(h.dir, "r3"), "--url", "http://127.0.0.1:99999"}, "port 99999: must be 1-65535"},
	} {
		if code, _, errs := runCLI(tc.args...); code != ExitInvalid || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", tc.args, code, tc.want, errs)
		}
	}
}
