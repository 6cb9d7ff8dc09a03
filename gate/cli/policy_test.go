package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestCompareAndGateFromAgree judges the same files with `perfgate compare
// --config` and `perfgate gate --from` under one perfgate.yaml: both must
// read its policy the same way (verdict.FromConfig). The candidate is 50 %
// slower on ttft_ms.p50 and itl_ms.p99, neither of which the file gates:
// policy.gated is [tpot_ms.p50] and itl_ms.p99 only has a tolerance, which
// sets its margin and does not gate it (docs/statistics.md). So both
// commands give the same verdict on tpot_ms.p50 alone, and show itl_ms.p99
// as an ungated cell with its 5 % tolerance. Before the one mapping, compare ignored the file (the default
// policy gates ttft_ms.p50: regression) and gate gated itl_ms.p99 because
// it had a tolerance (regression).
func TestCompareAndGateFromAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	yaml := "profile: p\npolicy:\n  gated: [tpot_ms.p50]\n  tolerances: {itl_ms.p99: 0.05}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	slower := func(r *result.Result, ttft, itl float64) *result.Result {
		for i := range r.Trials {
			v := r.Trials[i].Values
			v["ttft_ms.p50"] *= ttft
			v["itl_ms.p99"] = 50 * itl * (1 + 0.002*float64(i%3))
		}
		return r
	}
	baseDir := filepath.Join(dir, "baselines", "p")
	candDir := filepath.Join(dir, "cand")
	for _, cell := range []string{"a", "b"} {
		writeResult(t, filepath.Join(baseDir, cell+".json"), slower(compareTestResult(cell, 5, 1), 1, 1))
		writeResult(t, filepath.Join(candDir, cell+".json"), slower(compareTestResult(cell, 5, 1), 1.5, 1.5))
	}

	code, out, errOut := runCLI("compare", "--config", cfg, "--baseline", baseDir, "--candidate", candDir, "--format", "json")
	var byCompare verdict.Comparison
	if err := json.Unmarshal([]byte(out), &byCompare); err != nil {
		t.Fatalf("compare --config: exit %d, output not a comparison: %v\n%s\n%s", code, err, out, errOut)
	}
	// Nothing gated changed: pass, or inconclusive where the noise model
	// cannot rule out a change of the tolerance; never a regression.
	if v := byCompare.Verdict; code != compareCode(v) || (v != verdict.Pass && v != verdict.Inconclusive) {
		t.Fatalf("compare --config: verdict %s, exit %d; want pass or inconclusive (nothing gated regressed)\n%s", v, code, errOut)
	}
	itl := false
	for _, c := range byCompare.Cells {
		if c.Metric == "itl_ms.p99" {
			itl = true
			if c.Gated || c.Tolerance != 5 {
				t.Errorf("compare --config: itl_ms.p99 gated %v with tolerance %v; want ungated at its 5 %%", c.Gated, c.Tolerance)
			}
		}
	}
	if !itl {
		t.Error("compare --config: no itl_ms.p99 cell")
	}
	gateOut := filepath.Join(dir, "gate")
	code, out, errOut = runCLI("gate", "--config", cfg, "--from", candDir, "--baselines", filepath.Join(dir, "baselines"), "-o", gateOut)
	if code != ExitPass {
		t.Fatalf("gate --from: exit %d, want 0 (pass, or inconclusive without --fail-on-inconclusive)\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(gateOut, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	var byGate verdict.Comparison
	if err := json.Unmarshal(data, &byGate); err != nil {
		t.Fatal(err)
	}
	if byGate.Verdict != byCompare.Verdict || byGate.Family != 2 || byCompare.Family != 2 {
		t.Errorf("gate --from: verdict %s, family %d; compare --config: %s, family %d; want the same, over the two tpot_ms.p50 cells",
			byGate.Verdict, byGate.Family, byCompare.Verdict, byCompare.Family)
	}

	// Without the file's policy the same files are a regression (the
	// default policy gates ttft_ms.p50): the file is what decides.
	if code, _, errOut := runCLI("compare", "--config", filepath.Join(dir, "none.yaml"), "--baseline", baseDir, "--candidate", candDir); code != ExitInvalid || !strings.Contains(errOut, "none.yaml") {
		t.Errorf("compare with a missing --config file: exit %d, want 2 naming it\n%s", code, errOut)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("profile: p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI("compare", "--config", empty, "--baseline", baseDir, "--candidate", candDir); code != ExitRegression {
		t.Errorf("compare under the default policy: exit %d, want 1 (ttft_ms.p50 +50 %%)\n%s\n%s", code, out, errOut)
	}
}

// TestBaselineRequirementsFollowPolicy: baseline update's defaults are the
// verdict's own thresholds, not a copy of their numbers that can drift.
// compareCode is compare's exit code for verdict v.
func compareCode(v verdict.Outcome) ExitCode {
	switch v {
	case verdict.Pass:
		return ExitPass
	case verdict.Regression:
		return ExitRegression
	case verdict.Inconclusive:
		return ExitInconclusive
	}
	return ExitInvalid
}

func TestBaselineRequirementsFollowPolicy(t *testing.T) {
	t.Parallel()
	cmd := newBaselineUpdateCmd(&Streams{})
	p := verdict.DefaultPolicy()
	for flag, want := range map[string]string{
		"min-trials":        strconv.Itoa(p.MinTrials),
		"max-invalid-share": strconv.FormatFloat(p.MaxInvalidShare, 'g', -1, 64),
	} {
		if got := cmd.Flags().Lookup(flag).DefValue; got != want {
			t.Errorf("--%s defaults to %s, the verdict's threshold is %s", flag, got, want)
		}
	}
}
