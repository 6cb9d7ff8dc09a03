package cli

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// compareE2EArm is one arm of the end-to-end test: a simulator with its
// decode cost scaled, and the results measured against it so far.
type compareE2EArm struct {
	dir     string
	runner  *loadgen.Runner
	results []*result.Result
}

// compareE2E measures workloads against one simulator per arm (preset
// fast, decode cost x scale), on loopback, bounded by the workloads'
// request counts and the context's deadline.
type compareE2E struct {
	t    *testing.T
	ctx  context.Context
	ms   []*workload.Manifest
	arms []*compareE2EArm
	done int // trials per arm so far
}

func newCompareE2E(t *testing.T, ctx context.Context, files, dirs []string, scales []float64) *compareE2E {
	ms, err := workload.LoadPaths(files)
	if err != nil {
		t.Fatal(err)
	}
	e := &compareE2E{t: t, ctx: ctx, ms: ms}
	for i, dir := range dirs {
		cfg, err := sim.Preset("fast")
		if err != nil {
			t.Fatal(err)
		}
		cfg.DecodeScale = scales[i]
		s := sim.New(cfg)
		t.Cleanup(s.Close)
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)
		r, err := loadgen.New(loadgen.Config{URL: srv.URL, Warmups: -1, ReadyTimeout: 5 * time.Second, Grace: time.Second,
			// A shared, loaded test machine is a slow client; that is not
			// what this test is about.
			Limits: metrics.Limits{DispatchLagMs: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Close)
		a := &compareE2EArm{dir: dir, runner: r}
		for _, m := range ms {
			info, err := r.Prepare(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			res := r.NewResult(m, info)
			res.StartedAt = time.Now().UTC()
			res.Fingerprint = map[string]string{"gpu.name": "sim", "gpu.count": "1", "server.model": cfg.Model}
			a.results = append(a.results, res)
		}
		e.arms = append(e.arms, a)
	}
	return e
}

// run adds n trials to every arm, interleaving the arms trial by trial and
// rotating their order each round, so that the drift and load changes of a
// shared machine fall on every arm alike; then it (re)writes the result
// files.
func (e *compareE2E) run(n int) {
	t := e.t
	for i := 0; i < n; i++ {
		for j, m := range e.ms {
			for k := range e.arms {
				a := e.arms[(k+e.done)%len(e.arms)]
				if err := a.runner.RunTrials(e.ctx, m, a.results[j], 1); err != nil {
					t.Fatalf("%s: %v", m.Cell, err)
				}
			}
		}
		e.done++
	}
	for _, a := range e.arms {
		for _, res := range a.results {
			res.FinishedAt = time.Now().UTC()
			if err := result.Write(filepath.Join(a.dir, result.FileName(res.Workload.Cell)), res); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCompareEndToEnd: promote a simulator run to a baseline; a run with
// the same settings passes, a run with decode cost x1.3 is a regression of
// TPOT. Like perfgate gate, it adds trials while the same-settings
// comparison is inconclusive (up to 3 rounds): on a busy shared machine a
// stall can leave 6 trials undecided, which is the verdict's honest answer,
// not a failure. More trials cannot turn a real difference into a pass.
func TestCompareEndToEnd(t *testing.T) {
	// Not parallel: its baseline's noise screen and verdict measure the
	// machine, and the other end-to-end runs would be part of it.
	if testing.Short() {
		t.Skip("end-to-end run against the simulator (-short)")
	}
	if compareRaceBuild {
		t.Skip("timings under the race detector measure the detector, not the simulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	base, same, slow := filepath.Join(dir, "base"), filepath.Join(dir, "same"), filepath.Join(dir, "slow")
	store := filepath.Join(dir, "baselines")
	profile := filepath.Join(store, "sim-fast")
	e := newCompareE2E(t, ctx, []string{"testdata/compare-e2e.yaml"}, []string{base, same, slow}, []float64{1, 1, 1.3})

	var code ExitCode
	var out, errs string
	for round := 1; round <= 3; round++ {
		e.run(6)
		if code, out, errs := runCLI("baseline", "update", "--from", base, "--profile", "sim-fast", "--baselines", store, "--git-sha", "e2e"); code != ExitPass {
			t.Fatalf("baseline update: exit %d\n%s%s", code, out, errs)
		}
		// The arms are interleaved trial by trial against simulators with
		// no per-start offset: one session in effect, so the compare is
		// told so instead of assuming the uncalibrated default (8 %).
		code, out, errs = runCLI("compare", "--baseline", profile, "--candidate", same, "--assumed-between", "0")
		t.Logf("same settings, %d trials per arm: exit %d\n%s", e.done, code, out)
		if code != ExitInconclusive {
			break
		}
	}
	if code != ExitPass {
		t.Errorf("same settings: exit %d, want 0\n%s", code, errs)
	}
	code, out, errs = runCLI("compare", "--baseline", profile, "--candidate", slow, "--assumed-between", "0")
	t.Logf("decode x1.3: exit %d\n%s", code, out)
	first, _, _ := strings.Cut(out, "\n")
	if code != ExitRegression || !strings.HasPrefix(first, "REGRESSION in compare-e2e") || !compareHasRow(out, "TPOT p50", "REGRESSION") {
		t.Errorf("decode x1.3: exit %d, want 1 with TPOT p50 regressed\n%s%s", code, out, errs)
	}
}

// compareHasRow reports whether the text report has a table row with both
// strings.
func compareHasRow(report, a, b string) bool {
	for _, line := range strings.Split(report, "\n") {
		if strings.Contains(line, a) && strings.Contains(line, b) {
			return true
		}
	}
	return false
}
