package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestGateFromKeepsLookAlpha is issue 14's defect 18 through the CLI: two
// shards of a gate, one judged at look 2 of 3 and one at look 1 of 1, are
// merged and judged with gate --from (and compare): both test at the
// alpha of look 2 of 3 (0.01 / 3), as the shard's gate did, never at the
// full 0.01.
func TestGateFromKeepsLookAlpha(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(cfg, []byte("profile: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"a", "b"} {
		writeResult(t, filepath.Join(dir, "baselines", "p", cell+".json"), compareTestResult(cell, 5, 1))
	}
	a := compareTestResult("a", 5, 1)
	a.Looks = &result.Looks{Index: 2, Max: 3}
	a.Trials[3].Look, a.Trials[4].Look = 1, 1
	b := compareTestResult("b", 5, 1)
	b.Looks = &result.Looks{Index: 1, Max: 1}
	writeResult(t, filepath.Join(dir, "shard1", "results", "a.json"), a)
	writeResult(t, filepath.Join(dir, "shard2", "results", "b.json"), b)
	merged := filepath.Join(dir, "merged")
	if code, _, errOut := mergeRunCLI(filepath.Join(dir, "shard1"), filepath.Join(dir, "shard2"), "-o", merged); code != ExitPass {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	r, err := result.Read(filepath.Join(merged, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Looks == nil || *r.Looks != (result.Looks{Index: 2, Max: 3}) {
		t.Fatalf("merged a.json: looks %+v, want 2 of 3", r.Looks)
	}

	out := filepath.Join(dir, "judged")
	if code, stdout, errOut := runCLI("gate", "--config", cfg, "--from", merged, "--baselines", filepath.Join(dir, "baselines"), "-o", out); code != ExitPass {
		t.Fatalf("gate --from: exit %d, want 0 (unchanged: pass, or inconclusive without --fail-on-inconclusive)\n%s\n%s", code, stdout, errOut)
	}
	var c verdict.Comparison
	data, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil || json.Unmarshal(data, &c) != nil {
		t.Fatalf("comparison.json: %v", err)
	}
	if c.Look != (verdict.Look{Index: 2, Max: 3}) || c.LookAlpha != 0.01/3 {
		t.Errorf("gate --from: look %+v, look alpha %v; want look 2 of 3 at %v", c.Look, c.LookAlpha, 0.01/3)
	}

	code, stdout, errOut := runCLI("compare", "--config", cfg, "--baseline", filepath.Join(dir, "baselines", "p"), "--candidate", merged, "--format", "json")
	if code != ExitPass && code != ExitInconclusive {
		t.Fatalf("compare: exit %d, want 0 or 4 (unchanged)\n%s", code, errOut)
	}
	var cc verdict.Comparison
	if err := json.Unmarshal([]byte(stdout), &cc); err != nil {
		t.Fatal(err)
	}
	if cc.LookAlpha != c.LookAlpha {
		t.Errorf("compare: look alpha %v, gate --from %v", cc.LookAlpha, c.LookAlpha)
	}
}
