package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestDayOneRates is the done-when measurement (docs/init.md,
// "What a default setup decides"), run only with PERFGATE_DAYONE=1: it
// is minutes of real-time simulation, not a unit test.
//
// It follows the init flow against `perfgate sim --session-cv 0.02` (the
// one smoke workload, init's default calibration of 5 starts x 3 trials,
// then the first baseline), then runs `perfgate gate` on the written
// perfgate.yaml PERFGATE_DAYONE_N times (default 20) against an unchanged
// simulator and as many against `--decode-scale 1.1`, each launching its
// own fresh server (a new session offset), and prints the pass rate of the
// unchanged runs, the rate at which the decode x1.1 runs were a
// REGRESSION naming TPOT, and the GPU time each run took scaled to a real
// start-up:
//
//	scaled = wall − starts·simStartup + starts·PERFGATE_DAYONE_STARTUP
//
// where starts is the server starts of the run (trials.restarts, or 1),
// simStartup the simulator's own start-up (launch to ready and stop,
// measured here once), and PERFGATE_DAYONE_STARTUP (default 4m) the start-up
// price init's table was given (`--startup`), so the figures are priced
// as the table prices them.
func TestDayOneRates(t *testing.T) {
	if os.Getenv("PERFGATE_DAYONE") != "1" {
		t.Skip("PERFGATE_DAYONE=1 runs the day-one measurement (minutes)")
	}
	n := 20
	if v := os.Getenv("PERFGATE_DAYONE_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("PERFGATE_DAYONE_N=%q: want a positive count", v)
		}
	}
	startup := 4 * time.Minute
	if v := os.Getenv("PERFGATE_DAYONE_STARTUP"); v != "" {
		var err error
		if startup, err = time.ParseDuration(v); err != nil {
			t.Fatalf("PERFGATE_DAYONE_STARTUP=%q: %v", v, err)
		}
	}
	exe := runServerCmd(t)
	dir := t.TempDir()
	sim := exe + " sim --addr 127.0.0.1:0 --session-cv 0.02 --step-base 500us --decode-fixed 4500us"
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"init", "--dir", dir, "--server-cmd", sim, "--server-env", "CLI_TEST_PERFGATE_MAIN=1",
		"--workloads", "smoke-chat-c4", "--profile", "dayone", "--startup", startup.String(), "--ready-timeout", "30s"},
		Streams{Out: &stdout, Err: &stderr})
	if code != ExitPass {
		t.Fatalf("init: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	t.Logf("init:\n%s", stdout.String())
	cfgPath := filepath.Join(dir, "perfgate.yaml")
	cfg, _ := os.ReadFile(cfgPath)
	t.Logf("perfgate.yaml:\n%s", cfg)

	// The measurement runs the stored check (`perfgate gate`); an A/B PR
	// check would be measured by `perfgate ab` against a merge-base build,
	// which this does not do.
	if pr, _ := os.ReadFile(filepath.Join(dir, ".github", "workflows", "perfgate-pr.yml")); strings.Contains(string(pr), "mode: ab") {
		t.Fatalf("init chose an A/B PR check, which this measurement does not run: rerun with a smaller --max-gpu")
	}
	simStartup := measureStartup(t, sim)
	type tally struct {
		runs, pass, named int
		scaled, wall      time.Duration
	}
	measure := func(label, serverCmd string) tally {
		var tl tally
		for i := 0; i < n; i++ {
			out := filepath.Join(dir, fmt.Sprintf("gate-%s-%02d", label, i))
			args := []string{"gate", "--config", cfgPath, "-o", out}
			if serverCmd != "" {
				args = append(args, "--server-cmd", serverCmd)
			}
			var so, se bytes.Buffer
			began := time.Now()
			code := Main(context.Background(), args, Streams{Out: &so, Err: &se})
			wall := time.Since(began)
			starts := strings.Count(se.String(), "starting the server: ")
			scaled := wall - time.Duration(starts)*simStartup + time.Duration(starts)*startup
			cmp := readComparison(t, filepath.Join(out, "comparison.json"))
			tl.runs++
			tl.wall += wall
			tl.scaled += scaled
			if cmp != nil && cmp.Verdict == verdict.Pass && code == ExitPass {
				tl.pass++
			}
			tpot := false
			if cmp != nil && cmp.Verdict == verdict.Regression {
				for _, c := range cmp.Cells {
					if c.Outcome == verdict.Regression && strings.HasPrefix(c.Metric, "tpot_ms") {
						tpot = true
					}
				}
			}
			if tpot {
				tl.named++
			}
			verdictText := "none"
			if cmp != nil {
				verdictText = string(cmp.Verdict)
			}
			if code != ExitPass && code != ExitRegression && code != ExitInconclusive {
				t.Logf("%s run %d stderr:\n%s", label, i+1, se.String())
			}
			t.Logf("%s run %d: exit %d, verdict %s, TPOT named %v, %d start(s), wall %s, scaled %s", label, i+1, code, verdictText, tpot, starts, wall.Round(time.Millisecond), scaled.Round(time.Second))
		}
		return tl
	}
	same := measure("unchanged", "")
	slow := measure("decode1.1", sim+" --decode-scale 1.1")
	mean := func(d time.Duration, k int) time.Duration { return d / time.Duration(max(k, 1)) }
	t.Logf("simulator start-up measured %s; start-ups priced at %s", simStartup.Round(time.Millisecond), startup)
	fmt.Printf("day one (%d + %d gate runs): unchanged passed %d of %d (%.0f %%); decode x1.1 a regression naming TPOT in %d of %d (%.0f %%); GPU time per run at a %s start-up: %s unchanged, %s decode x1.1 (wall here %s, %s)\n",
		n, n, same.pass, same.runs, 100*float64(same.pass)/float64(same.runs), slow.named, slow.runs, 100*float64(slow.named)/float64(slow.runs),
		startup, mean(same.scaled, same.runs).Round(time.Second), mean(slow.scaled, slow.runs).Round(time.Second),
		mean(same.wall, same.runs).Round(time.Millisecond), mean(slow.wall, slow.runs).Round(time.Millisecond))
}

// measureStartup is the simulator's start-up as the GPU-time scaling
// removes it: launch to ready, then stop.
func measureStartup(t *testing.T, serverCmd string) time.Duration {
	t.Helper()
	argv, err := config.SplitArgv(serverCmd)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err = session.Run(context.Background(), session.Options{Command: argv, Env: []string{"CLI_TEST_PERFGATE_MAIN=1"}, Environ: os.Environ(), ReadyTimeout: 30 * time.Second},
		func(context.Context, *session.Session) error { return nil })
	if err != nil {
		t.Fatalf("simulator start-up: %v", err)
	}
	return time.Since(began)
}

func readComparison(t *testing.T, path string) *verdict.Comparison {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Logf("%s: %v", path, err)
		return nil
	}
	var c verdict.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		t.Logf("%s: %v", path, err)
		return nil
	}
	return &c
}
