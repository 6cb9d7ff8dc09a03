package cli

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// capacityE2ESim is a seat-limited simulator with a constant 5 ms step
// (gate/pipeline's capacity tests derive its capacity): 16 tokens per
// request make a seat serve 12.5 req/s. It runs in real time, so the tests
// below hold what they measure to direction and size (a candidate with one
// seat of four serves a quarter) and to bounds no loaded machine can
// cross (no engine serves faster than its parameters), never measuring
// again when the machine stalled it.
func capacityE2ESim(t *testing.T, seats int) string {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxNumSeqs, cfg.StepBase = seats, sim.Duration(5*time.Millisecond)
	cfg.DecodeFixed, cfg.DecodePerSeq, cfg.PrefillPerToken, cfg.PerContextTokenNs, cfg.JitterCV = 0, 0, 0, 0, 0
	s := sim.New(cfg)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}

// TestCapacityRunAndCompare: `perfgate run` of a capacity workload writes
// one search per trial with its probes; `perfgate compare` of a candidate
// with half the seats fails on capacity_rps and shows the curves.
func TestCapacityRunAndCompare(t *testing.T) {
	// Not parallel: the capacity searches measure the simulator in real time,
	// and the other end-to-end runs would be part of what they measure.
	if testing.Short() {
		t.Skip("end-to-end run against the simulator (-short)")
	}
	dir := t.TempDir()
	for _, arm := range []struct {
		dir   string
		seats int
	}{{"base", 4}, {"cand", 1}} {
		out := filepath.Join(dir, arm.dir)
		code, stdout, stderr := runCLI("run", "-w", "testdata/capacity-e2e.yaml", "--url", capacityE2ESim(t, arm.seats), "-o", out, "--max-dispatch-lag-ms", "1000")
		if code != ExitPass {
			t.Fatalf("run (%d seats): exit %d\n%s%s", arm.seats, code, stdout, stderr)
		}
		if !strings.Contains(stderr, "probe saturation (rate inf)") {
			t.Errorf("run: no probe lines on stderr:\n%s", stderr)
		}
		r, err := result.Read(filepath.Join(out, "capacity-e2e.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trials) != 3 || r.Trials[0].Capacity == nil || len(r.Trials[0].Capacity.Probes) == 0 || r.Trials[0].Capacity.Probes[0].Unlimited != true {
			t.Fatalf("result: %d trials, first search %+v", len(r.Trials), r.Trials[0].Capacity)
		}
		t.Logf("%d seats: capacity %v, %v req/s", arm.seats, r.Samples("capacity_rps"), r.Samples("saturation_throughput"))
	}
	// Two simulators with no per-start offset: the compare is told so
	// instead of assuming the uncalibrated default (8 %).
	code, out, errs := runCLI("compare", "--baseline", filepath.Join(dir, "base"), "--candidate", filepath.Join(dir, "cand"), "--assumed-between", "0")
	t.Logf("compare: exit %d\n%s", code, out)
	if !strings.Contains(out, "Capacity of capacity-e2e") || !strings.Contains(out, "<- capacity") {
		t.Errorf("compare: the report has no capacity curve:\n%s", out)
	}
	if code != ExitRegression || !compareHasRow(out, "capacity_rps", "REGRESSION") {
		t.Errorf("compare: exit %d, want 1 with capacity_rps regressed\n%s%s", code, out, errs)
	}
}

// TestTwoStepRun: `perfgate run` of a workload at 80 % of saturation
// records the saturation it measured and the rate it then ran at, and its
// trials offer that rate.
func TestTwoStepRun(t *testing.T) {
	// Not parallel: the capacity search measures the simulator in real time.
	if testing.Short() {
		t.Skip("end-to-end run against the simulator (-short)")
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI("run", "-w", "testdata/two-step-e2e.yaml", "--url", capacityE2ESim(t, 4), "-o", out, "--max-dispatch-lag-ms", "1000")
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	r, err := result.Read(filepath.Join(out, "two-step-e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "running at 80%-of-saturation") {
		t.Errorf("no saturation line on stderr:\n%s", stderr)
	}
	sat := r.Saturation
	if sat == nil || sat.Share != 0.8 || sat.RateRPS != 0.8*sat.ThroughputRPS {
		t.Fatalf("saturation %+v: want the throughput measured and 80 %% of it run", sat)
	}
	// 4 seats x 12.5 req/s: a loaded machine slows the engine, never
	// speeds it up, so a saturation above the model's 50 req/s (10 % for
	// the short run's edges) is a wrong measurement.
	if !(sat.ThroughputRPS > 0 && sat.ThroughputRPS <= 55) {
		t.Errorf("saturation %+v: want at most about 50 req/s measured (4 seats x 12.5 req/s)", sat)
	}
	// 30 requests at constant spacing end at 30/rate seconds, and a trial
	// cannot complete them faster than they were offered.
	for _, v := range r.Samples("request_throughput") {
		if !(v > 0 && v <= 1.05*sat.RateRPS) {
			t.Errorf("trial throughput %.2f req/s, the trials were offered %.2f", v, sat.RateRPS)
		}
	}
}

// TestCapacityGate: `perfgate gate` runs a capacity workload against the
// server (no baseline yet: exit 2), its results become the baseline, and
// a server with half the seats fails the gate on capacity_rps.
func TestCapacityGate(t *testing.T) {
	// Not parallel: the capacity searches measure the simulator in real time.
	if testing.Short() {
		t.Skip("end-to-end gate test against the simulator")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "baselines")
	gate := func(url, out string) (ExitCode, string, string) {
		// laxLag: a search whose client a loaded machine wakes late would
		// be invalid, and the verdict INVALID; the capacity fall is the point.
		return runCLI(append([]string{"gate", "--config", "testdata/gate/perfgate.yaml", "--url", url, "--baselines", store,
			"-o", filepath.Join(dir, out), "--workloads", "testdata/capacity-e2e.yaml"}, laxLag...)...)
	}
	code, out, errs := gate(capacityE2ESim(t, 4), "base")
	if code != ExitInvalid || !strings.Contains(out, "missing-baseline") {
		t.Fatalf("baseline run: exit %d, want 2 with a missing baseline\n%s%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "base", "results", "capacity-e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := result.Write(filepath.Join(store, "e2e", "capacity-e2e.json"), r); err != nil {
		t.Fatal(err)
	}
	code, out, errs = gate(capacityE2ESim(t, 1), "cand")
	t.Logf("one seat of four: exit %d\n%s", code, out)
	if code != ExitRegression || !compareHasRow(out, "capacity_rps", "REGRESSION") {
		t.Errorf("one seat of four: exit %d, want 1 with capacity_rps regressed\n%s%s", code, out, errs)
	}
}

// TestTwoStepGateAtBaselineRate: a share-of-saturation workload whose
// baseline (`perfgate run`, promoted) recorded its rate, run as the gate
// runs it against a candidate with half the seats: at its own 80 % and at
// the baseline's rate. The share cell runs below the baseline's rate,
// `gate --from` of those results fails the cell at the baseline's rate on
// E2EL, `compare` builds the same second comparison from the files, and
// `baseline
// update` does not promote the cell at the baseline's rate. The
// candidate runs in process (pipeline.Run, what gate runs) with the
// dispatch-lag limit raised (gate's --max-dispatch-lag-ms, limits.* in
// perfgate.yaml): on a loaded machine the client wakes late now and then.
func TestTwoStepGateAtBaselineRate(t *testing.T) {
	// Not parallel: the capacity search and the verdict measure the
	// simulator in real time.
	if testing.Short() {
		t.Skip("end-to-end gate test against the simulator")
	}
	const wl, cfgFile = "testdata/two-step-gate-e2e.yaml", "testdata/gate/perfgate.yaml"
	dir := t.TempDir()
	store := filepath.Join(dir, "baselines")
	if code, out, errs := runCLI("run", "-w", wl, "--url", capacityE2ESim(t, 4), "-o", filepath.Join(dir, "base"), "--max-dispatch-lag-ms", "1000"); code != ExitPass {
		t.Fatalf("baseline run: exit %d\n%s%s", code, out, errs)
	}
	promote := func(from string) (ExitCode, string, string) {
		return runCLI("baseline", "update", "--from", from, "--profile", "e2e", "--baselines", store, "--config", cfgFile, "--accept-noisy")
	}
	if code, out, errs := promote(filepath.Join(dir, "base")); code != ExitPass {
		t.Fatalf("baseline update: exit %d\n%s%s", code, out, errs)
	}
	base, err := result.Read(filepath.Join(store, "e2e", "two-step-gate-e2e.json"))
	if err != nil {
		t.Fatal(err)
	}

	ms, err := workload.LoadPaths([]string{wl})
	if err != nil {
		t.Fatal(err)
	}
	r, err := loadgen.New(loadgen.Config{URL: capacityE2ESim(t, 1), Warmups: -1,
		Limits: metrics.Limits{FailureShare: metrics.DefaultLimits.FailureShare, DispatchLagMs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run, err := pipeline.Run(context.Background(), pipeline.Capacity{Serving: r}, ms, pipeline.Options{Baselines: []*result.Result{base}, Policy: verdict.DefaultPolicy()})
	if err != nil || run.RunErr != nil {
		t.Fatal(err, run.RunErr)
	}
	results := filepath.Join(dir, "cand")
	for _, res := range run.Results {
		// gate records the server's fingerprint around the runner; the
		// candidate is the same simulator build.
		res.Fingerprint = base.Fingerprint
		if err := result.Write(filepath.Join(results, result.FileName(res.Workload.Cell)), res); err != nil {
			t.Fatal(err)
		}
	}
	at, err := result.Read(filepath.Join(results, "two-step-gate-e2e@baseline-rate.json"))
	if err != nil {
		t.Fatal(err)
	}
	if at.BaselineRate == nil || base.Saturation == nil || at.BaselineRate.RateRPS != base.Saturation.RateRPS {
		t.Errorf("candidate at %+v, the baseline ran at %+v", at.BaselineRate, base.Saturation)
	}

	code, out, errs := runCLI("gate", "--config", cfgFile, "--baselines", store, "--from", results, "-o", filepath.Join(dir, "gate"), "--workloads", wl)
	t.Logf("gate --from: exit %d\n%s", code, out)
	if !queuedAtBaselineRate(code, out) {
		t.Errorf("exit %d, want E2EL regressed at the baseline's rate\n%s", code, errs)
	}
	// The share cell runs at 80 % of the candidate's own saturation, which
	// one seat of four cuts to a quarter: below the rate the baseline ran
	// at. (Its verdict is no check: the baseline ran minutes earlier, and a
	// loaded machine can slow one run and not the other; the queue at the
	// baseline's rate, 3.2 times what one seat serves, it cannot hide: at
	// 1.6 times, with two seats, a loaded host left +20 %.)
	share, err := result.Read(filepath.Join(results, "two-step-gate-e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	if share.Saturation == nil || !(share.Saturation.RateRPS < 0.75*base.Saturation.RateRPS) {
		t.Errorf("the share cell ran at %+v, the baseline at %+v: one seat of four should cut saturation to a quarter", share.Saturation, base.Saturation)
	}
	if !strings.Contains(out, "two-step-gate-e2e@baseline-rate ran the candidate at the baseline's") {
		t.Error("the report does not say which comparison is which")
	}
	code, out, _ = runCLI("compare", "--config", cfgFile, "--baseline", filepath.Join(store, "e2e"), "--candidate", results)
	if !queuedAtBaselineRate(code, out) {
		t.Errorf("compare: exit %d, want the cell at the baseline's rate compared and regressed\n%s", code, out)
	}
	code, out, errs = promote(results)
	if code != ExitPass || !strings.Contains(errs, "skipping") || strings.Contains(out, "@baseline-rate") {
		t.Errorf("baseline update of the candidate: exit %d\n%s%s", code, out, errs)
	}
}

// queuedAtBaselineRate reports whether a gate or compare of the two-step
// cell found E2EL at the baseline's rate regressed: exit 1 with the row
// REGRESSION, or, where three trials on a loaded machine under -race do
// not decide it at the family's alpha, the row undecided (exit 0 or 4)
// with a change above +30 %, three times the tolerance. Requests queue
// for the one seat left there: that direction and size no load hides, while
// how often three trials decide it is a rate for the verdict's seeded
// tests.
func queuedAtBaselineRate(code ExitCode, out string) bool {
	const row = "two-step-gate-e2e@baseline-rate  E2EL p50"
	if code == ExitRegression && compareHasRow(out, row, "REGRESSION") {
		return true
	}
	if code != ExitPass && code != ExitInconclusive {
		return false
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, row) || !strings.Contains(line, "INCONCLUSIVE") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "+") {
				v, err := strconv.ParseFloat(strings.TrimPrefix(f, "+"), 64)
				return err == nil && v > 30
			}
		}
	}
	return false
}
