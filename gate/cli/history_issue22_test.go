package cli

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// issue22Run is one promotion of cell "smoke" as `perfgate sim` measured
// it in issue 22: 10 trials, a between-session offset of sd 0.5 % shared
// by the session's metrics, a within-session CV drawn from 0.6-1.9 %, and
// decode slowed by decode (TPOT and E2EL times it, throughput over it;
// TTFT untouched).
func issue22Run(rng *rand.Rand, night int, decode float64) *result.Result {
	base := map[string]float64{
		"ttft_ms.p50": 4.1, "ttft_ms.p99": 6.3, "tpot_ms.p50": 1.04, "tpot_ms.p99": 1.31,
		"e2el_ms.p50": 70, "e2el_ms.p99": 96, "output_throughput": 2300, "request_throughput": 33,
	}
	ids := make([]string, 0, len(base))
	for id := range base {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order: the seed means the same series
	r := compareTestResult("smoke", 10, 1)
	r.StartedAt = time.Date(2026, 11, 1+night, 3, 0, 0, 0, time.UTC)
	offset := 0.005 * rng.NormFloat64()
	cv := 0.006 + 0.013*rng.Float64()
	for i := range r.Trials {
		for _, id := range ids {
			v := base[id] * math.Exp(offset+cv*rng.NormFloat64())
			switch {
			case strings.HasPrefix(id, "tpot") || strings.HasPrefix(id, "e2el"):
				v *= decode
			case strings.HasSuffix(id, "throughput"):
				v /= decode
			}
			r.Trials[i].Values[id] = v
		}
	}
	return r
}

// promoteSeries promotes one issue22Run per night through `baseline
// update`, night n's decode factor decode(n), commit "n" repeated.
func promoteSeries(t *testing.T, h *historyGate, nights int, decode func(int) float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(22, uint64(nights)))
	for n := 0; n < nights; n++ {
		from := writeResult(t, filepath.Join(h.dir, fmt.Sprintf("run-%02d", n), "smoke.json"), issue22Run(rng, n, decode(n)))
		sha := fmt.Sprintf("%02d%s", n+1, strings.Repeat("a", 38))
		if code, _, errs := runCLI("baseline", "update", "--from", from, "--profile", "p", "--baselines", h.store, "--git-sha", sha, "--git-ref", "refs/heads/main"); code != ExitPass {
			t.Fatalf("night %d: %s", n, errs)
		}
	}
}

var stepLine = regexp.MustCompile(`step: (.+?) (rose|fell) from run (\d+)`)

// steps lists `perfgate history`'s steps as "TPOT p50 rose 5".
func steps(out string) []string {
	var s []string
	for _, m := range stepLine.FindAllStringSubmatch(out, -1) {
		s = append(s, m[1]+" "+m[2]+" "+m[3])
	}
	return s
}

// TestHistoryFindsIssue22Series runs `perfgate history` as a user would
// on the two series of issue 22: eight promotions with decode 15 % slower
// from the fifth (TPOT p50 1.04 -> 1.19 ms), which the permutation test
// could never find (its p-value floor 0.029 > 0.01), and twelve with a
// +13 % bump at runs 5-8 that was reverted, where it said "no step
// detected". Every step found is at the runs the change began and ended,
// TPOT p50's among them, and none is in TTFT, which the decode change
// leaves alone. An unchanged build gated against the twelve-run history
// then passes at the default tolerances: the baseline is the newest
// segment (runs 9-12), not a mix of both levels.
func TestHistoryFindsIssue22Series(t *testing.T) {
	t.Parallel()
	t.Run("step at run 5 of 8", func(t *testing.T) {
		h := newHistoryGate(t, "")
		promoteSeries(t, h, 8, func(n int) float64 {
			if n >= 4 {
				return 1.15
			}
			return 1
		})
		code, out, errs := runCLI("history", "--profile", "p", "--baselines", h.store)
		if code != ExitPass {
			t.Fatalf("exit %d: %s", code, errs)
		}
		got := steps(out)
		t.Logf("steps: %v", got)
		if !contains(got, "TPOT p50 rose 5") {
			t.Errorf("TPOT p50's step at run 5 not found:\n%s", out)
		}
		for _, s := range got {
			if !strings.HasSuffix(s, " 5") || strings.HasPrefix(s, "TTFT") {
				t.Errorf("step %q: only run 5 of the decode metrics stepped\n%s", s, out)
			}
		}
	})
	t.Run("bump at runs 5-8 of 12, then an A/A gate", func(t *testing.T) {
		h := newHistoryGate(t, "")
		promoteSeries(t, h, 12, func(n int) float64 {
			if n >= 4 && n < 8 {
				return 1.13
			}
			return 1
		})
		code, out, errs := runCLI("history", "--profile", "p", "--baselines", h.store)
		if code != ExitPass {
			t.Fatalf("exit %d: %s", code, errs)
		}
		got := steps(out)
		t.Logf("steps: %v", got)
		if !contains(got, "TPOT p50 rose 5") || !contains(got, "TPOT p50 fell 9") {
			t.Errorf("TPOT p50's bump (rose at 5, fell at 9) not found:\n%s", out)
		}
		for _, s := range got {
			if !(strings.HasSuffix(s, " 5") || strings.HasSuffix(s, " 9")) || strings.HasPrefix(s, "TTFT") {
				t.Errorf("step %q: only runs 5 and 9 of the decode metrics stepped\n%s", s, out)
			}
		}
		rng := rand.New(rand.NewPCG(2222, 1))
		cand := filepath.Join(h.dir, "cand")
		c := issue22Run(rng, 12, 1)
		writeResult(t, filepath.Join(cand, "smoke.json"), c)
		outDir := filepath.Join(h.dir, "out")
		code, stdout, errs := runCLI("gate", "--config", h.cfg, "--baselines", h.store, "--from", cand, "-o", outDir)
		if code != ExitPass {
			t.Errorf("A/A gate against the 12-run history: exit %d, want pass\n%s\n%s", code, stdout, errs)
		}
		if !strings.Contains(stdout+errs, "since the step") {
			t.Logf("gate output:\n%s\n%s", stdout, errs)
		}
	})
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
