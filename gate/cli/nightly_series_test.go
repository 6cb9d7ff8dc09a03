package cli

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// nightResult is one night's run of workload a: 5 trials with 1.5 %
// within-session noise around level (a factor on every latency), or
// spread spread (a busy host) when spread > 0.
func nightResult(rng *rand.Rand, night int, level, spread float64) *result.Result {
	r := compareTestResult("a", 5, 1)
	r.StartedAt = r.StartedAt.Add(time.Duration(night) * 24 * time.Hour)
	sd := 0.015
	if spread > 0 {
		sd = spread
	}
	for i := range r.Trials {
		for id, v := range r.Trials[i].Values {
			if id == "success_rate" {
				continue
			}
			f := level * math.Exp(sd*rng.NormFloat64())
			if strings.Contains(id, "throughput") {
				f = 1 / f
			}
			r.Trials[i].Values[id] = v * f
		}
	}
	return r
}

// TestNightlySeriesGrowsTheBranch drives 14 nights of the nightly
// example's record step (`baseline update --branch perfgate-baselines`
// from main's clone, whatever the verdict) against a local bare origin:
// the ordinary nights (including the nights after a 10 % slowdown on main,
// which the gate calls a regression) all land in the history on the
// branch; the noisy night, the incomplete night and the night on a loaded
// host are skipped with their reason and exit 2; main never moves; a pull request's checkout
// reads the branch and what it writes stays in its own tree.
func TestNightlySeriesGrowsTheBranch(t *testing.T) {
	// Not parallel: t.Chdir, the commands work on the checkout they run in.
	bare, clones := gitOrigin(t, 2)
	mainTip := gitT(t, bare, "rev-parse", "main")
	rng := rand.New(rand.NewPCG(14, 14))
	t.Chdir(clones[0])
	recorded := 0
	for night := 1; night <= 14; night++ {
		level, spread := 1.0, 0.0
		if night >= 9 {
			level = 1.10 // a slowdown landed on main
		}
		r := nightResult(rng, night, level, spread)
		want, reason := ExitPass, ""
		switch night {
		case 5:
			r = nightResult(rng, night, level, 0.4) // a busy host
			want, reason = ExitInvalid, "spread across trials"
		case 7:
			r.Complete, r.IncompleteReason = false, "server died"
			want, reason = ExitInvalid, "the run is incomplete (server died)"
		case 11:
			for i := 0; i < 3; i++ { // a neighbour loaded the host
				r.Trials[i].Health = &result.Health{CPUs: 16, Summary: result.HealthSummary{MaxLoad1: 40}}
			}
			want, reason = ExitInvalid, "ran on a busy runner"
		}
		results := filepath.Join(t.TempDir(), "results")
		writeResult(t, filepath.Join(results, "a.json"), r)
		code, out, errs := gitCLI(nil, "baseline", "update", "--from", results, "--profile", "p", "--branch", "perfgate-baselines",
			"--git-sha", strings.Repeat(string(rune('a'+night%6)), 40), "--git-ref", "refs/heads/main")
		if code != want || !strings.Contains(errs, reason) {
			t.Fatalf("night %d: exit %d, want %d with %q\n%s%s", night, code, want, reason, out, errs)
		}
		if code == ExitPass {
			recorded++
		}
		if n := len(strings.Split(gitT(t, bare, "show", "perfgate-baselines:baselines/p/history/a.jsonl"), "\n")); n != recorded {
			t.Fatalf("night %d: %d history lines on the branch, want %d", night, n, recorded)
		}
	}
	if recorded != 11 {
		t.Errorf("%d of 14 nights recorded, want 11 (all but the noisy, the incomplete and the busy night)", recorded)
	}
	if tip := gitT(t, bare, "rev-parse", "main"); tip != mainTip {
		t.Errorf("main moved: %s -> %s", mainTip, tip)
	}
	if n := strings.Count(gitT(t, bare, "log", "--format=%H", "perfgate-baselines"), "\n") + 1; n != 11 {
		t.Errorf("%d commits on the branch, want one per recorded night (11)", n)
	}

	// A pull request's checkout: it reads the branch (history shows the
	// 11 nights), and a promotion it runs without --branch
	// writes its own tree, never the branch.
	t.Chdir(clones[1])
	branchTip := gitT(t, bare, "rev-parse", "perfgate-baselines")
	code, out, errs := gitCLI(nil, "history", "--config", "perfgate.yaml", "--format", "json")
	if code != ExitPass || strings.Count(out, `"commit"`) < 11 {
		t.Errorf("history from the PR checkout: exit %d\n%s%s", code, out, errs)
	}
	results := filepath.Join(t.TempDir(), "results")
	writeResult(t, filepath.Join(results, "a.json"), nightResult(rng, 20, 1.3, 0))
	if code, out, errs := gitCLI(nil, "baseline", "update", "--from", results, "--profile", "p", "--baselines", "baselines"); code != ExitPass {
		t.Fatalf("PR's in-tree promotion: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(clones[1], "baselines", "p", "a.json")); err != nil {
		t.Error(err)
	}
	if tip := gitT(t, bare, "rev-parse", "perfgate-baselines"); tip != branchTip {
		t.Errorf("the PR's checkout moved the branch: %s -> %s", branchTip, tip)
	}
}
