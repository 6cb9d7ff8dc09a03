package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 20, item 13: 0.5 % HTTP 500s where the baseline had none pass
// success_rate's 0.5-point tolerance, and the PR comment says so.
func TestGateCommentShowsNewServerErrors(t *testing.T) {
	t.Parallel()
	h := newHistoryGate(t, "")
	b := compareTestResult("a", 10, 1)
	for i := range b.Trials {
		b.Trials[i].Completed = 200
	}
	from := writeResult(t, filepath.Join(h.dir, "run-a", "a.json"), b)
	if code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", h.store, "--git-sha", sha('a'), "--git-ref", "refs/heads/main"); code != ExitPass {
		t.Fatal(errs)
	}
	c := compareTestResult("a", 10, 1)
	for i := range c.Trials {
		c.Trials[i].Completed, c.Trials[i].Failed = 199, 1
		c.Trials[i].Errors = map[string]int{"http_500": 1}
		c.Trials[i].Values["success_rate"] = 0.995
	}
	cand := filepath.Join(h.dir, "cand")
	writeResult(t, filepath.Join(cand, "a.json"), c)
	out := filepath.Join(h.dir, "out")
	code, _, errs := runCLI("gate", "--config", h.cfg, "--baselines", h.store, "--from", cand, "-o", out)
	comment, _ := os.ReadFile(filepath.Join(out, "comment.md"))
	if code == ExitInvalid || !strings.Contains(string(comment), "new server errors: the candidate failed 10 of 2000 requests") {
		t.Errorf("exit %d; the comment does not show the new server errors:\n%s%s", code, comment, errs)
	}
}
