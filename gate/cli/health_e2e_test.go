package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
)

// fakeGPUTools puts an nvidia-smi and a dmesg on PATH. nvidia-smi prints
// gpus for --query-gpu (after checking the columns and format it is asked
// for) and, for --query-compute-apps, the output of the shell snippet apps
// with $n set to how many times the processes were asked for (1 at the
// run's first sample). dmesg prints nothing.
func fakeGPUTools(t *testing.T, gpus, apps string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gpus.csv"), []byte(gpus), 0o644); err != nil {
		t.Fatal(err)
	}
	smi := fmt.Sprintf(`#!/bin/sh
d='%s'
[ "$2" = --format=csv,noheader,nounits ] || exit 9
case "$1" in
--query-gpu=%s) cat "$d/gpus.csv";;
--query-compute-apps=%s)
  n=$(( $(cat "$d/n" 2>/dev/null || echo 0) + 1 )); echo $n > "$d/n"
  { %s; }; exit 0;;
*) echo "Field is not a valid field to query." >&2; exit 2;;
esac
`, dir, health.GPUQuery(false), health.AppsQuery, apps)
	for name, script := range map[string]string{"nvidia-smi": smi, "dmesg": "#!/bin/sh\nexit 0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(session.HealthEnv, "")
}

const (
	healthyGPU   = "0, GPU-0aa, 1980, 1980, 55, 410.5, 700.00, 93, 0x0000000000000000, 0\n"
	slowGPU      = "0, GPU-0aa, 990, 1980, 71, 402.0, 700.00, 93, 0x0000000000000008, 0\n"
	idleGPU      = "0, GPU-0aa, 345, 1980, 40, 80.0, 700.00, 0, 0x0000000000000001, 0\n"
	noGPUProcess = "true"
)

// healthRun runs decode-a against the in-process simulator by URL and
// returns its result.
func healthRun(t *testing.T, extra ...string) *result.Result {
	t.Helper()
	ts := runSim(t)
	dir := t.TempDir()
	code, out, errs := runMain(context.Background(), append(append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "--url", ts.URL, "-o", dir, "--trials", "2"), extra...)...)
	r, err := result.Read(filepath.Join(dir, "decode-a.json"))
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}
	checkRunExit(t, code, r, out, errs)
	return r
}

// checkRunExit: run exits 0 when the cell has a valid trial and 3 when
// runner health left it none (pipeline.Unmeasured); the result is written
// either way.
func checkRunExit(t *testing.T, code ExitCode, r *result.Result, out, errs string) {
	t.Helper()
	want := ExitPass
	if len(r.ValidTrials()) == 0 {
		want = ExitRunFailed
	}
	if code != want {
		t.Fatalf("exit %v with %d valid trial(s), want %v\nstdout:\n%s\nstderr:\n%s", code, len(r.ValidTrials()), want, out, errs)
	}
}

// TestRunHealthCleanGPU: a GPU with nothing else on it and only benign
// clock reasons leaves every trial valid, with the GPU samples recorded.
func TestRunHealthCleanGPU(t *testing.T) {
	fakeGPUTools(t, healthyGPU, noGPUProcess)
	r := healthRun(t)
	if len(r.ValidTrials()) != 2 {
		t.Fatalf("%d valid trials: %+v", len(r.ValidTrials()), r.Trials)
	}
	for _, tr := range r.Trials {
		h := tr.Health
		if h == nil || h.GPU != "nvidia-smi" || len(h.Samples) < 2 || len(h.Samples[0].GPUs) != 1 || h.Samples[0].GPUs[0].SMClockMHz != 1980 {
			t.Fatalf("trial %d health %+v", tr.Index, h)
		}
		if h.CPUs < 1 || h.Samples[0].MemTotalMiB <= 0 || len(h.Processes) != 0 || h.XidNote != "" {
			t.Errorf("trial %d host health %+v", tr.Index, h)
		}
	}
}

// TestRunHealthOtherProcess: a compute process that appears on the GPU
// after the run began (not the server's, which was there when it was
// ready) invalidates the trials it was seen in.
func TestRunHealthOtherProcess(t *testing.T) {
	later := `[ "$n" -gt 1 ] && echo "4242, python3 train.py, 20480, GPU-0aa"`
	fakeGPUTools(t, healthyGPU, later)
	r := healthRun(t)
	for _, tr := range r.Trials {
		if tr.Valid || !strings.Contains(tr.InvalidReason, "another process used the GPU during the trial: pid 4242 python3 train.py (20480 MiB on GPU-0aa)") {
			t.Errorf("trial %d: valid %v, reason %q", tr.Index, tr.Valid, tr.InvalidReason)
		}
		if tr.Health.Summary.OtherProcesses != 1 {
			t.Errorf("trial %d: %d other processes", tr.Index, tr.Health.Summary.OtherProcesses)
		}
	}
	// Recorded only: the same finding is a warning, the trials count.
	fakeGPUTools(t, healthyGPU, later) // a new run: the process appears after its start
	t.Setenv(session.HealthEnv, "record")
	r = healthRun(t)
	if len(r.ValidTrials()) != 2 || !strings.Contains(strings.Join(r.Trials[0].Warnings, "\n"), "runner health (recorded only): another process used the GPU") {
		t.Errorf("record: %d valid, warnings %q", len(r.ValidTrials()), r.Trials[0].Warnings)
	}
	// Off: nothing is sampled.
	t.Setenv(session.HealthEnv, "off")
	r = healthRun(t)
	if len(r.ValidTrials()) != 2 || r.Trials[0].Health != nil {
		t.Errorf("off: %d valid, health %+v", len(r.ValidTrials()), r.Trials[0].Health)
	}
}

// TestRunHealthHWSlowdown: HW-slowdown throttling invalidates every trial
// with the reason named.
func TestRunHealthHWSlowdown(t *testing.T) {
	fakeGPUTools(t, slowGPU, noGPUProcess)
	r := healthRun(t)
	for _, tr := range r.Trials {
		if tr.Valid || !strings.Contains(tr.InvalidReason, "the GPU throttled during the trial: GPU 0 hw_slowdown in") {
			t.Errorf("trial %d: valid %v, reason %q", tr.Index, tr.Valid, tr.InvalidReason)
		}
		if s := tr.Health.Summary; s.MinSMClockPct != 50 || len(s.Throttled) != 1 {
			t.Errorf("trial %d: summary %+v", tr.Index, s)
		}
	}
}

// TestRunHealthWithoutGPU: no nvidia-smi is host health only, recorded as
// such, never an error.
func TestRunHealthWithoutGPU(t *testing.T) {
	dir := t.TempDir() // an empty PATH: no nvidia-smi, no dmesg
	t.Setenv("PATH", dir)
	t.Setenv(session.HealthEnv, "")
	r := healthRun(t)
	if len(r.ValidTrials()) != 2 {
		t.Fatalf("%d valid trials: %+v", len(r.ValidTrials()), r.Trials)
	}
	for _, tr := range r.Trials {
		if h := tr.Health; h == nil || h.GPU != "no nvidia-smi on PATH: host health only" || len(h.Samples) < 2 || h.Samples[0].MemTotalMiB <= 0 {
			t.Errorf("trial %d health %+v", tr.Index, h)
		}
	}
}

// TestRunHealthLaunchedServer: with --server-cmd the server's own process
// tree is told from others by its process group: the launched server's
// process on the GPU is "server", the test's own process is "other", and
// the tree's load is its own, not a neighbour's.
func TestRunHealthLaunchedServer(t *testing.T) {
	cmd := runServerCmd(t)
	// The server is the process whose environment holds the --server-env
	// marker; this test process is another one. The marker names this
	// process, so a simulator launched by another test binary on the same
	// machine (every launched one has CLI_TEST_SERVE_SIM=1) is not listed
	// as this run's "sim" with the owner "other".
	mark := fmt.Sprintf("CLI_TEST_HEALTH_MARK=%d", os.Getpid())
	fakeGPUTools(t, healthyGPU, fmt.Sprintf(`for p in /proc/[0-9]*; do grep -qszx %s $p/environ && echo "${p#/proc/}, sim, 100, GPU-0aa"; done; echo "%d, perfgate.test, 50, GPU-0aa"`, mark, os.Getpid()))
	dir := t.TempDir()
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "-o", dir, "--trials", "2",
		"--server-cmd", cmd, "--server-env", "CLI_TEST_SERVE_SIM=1", "--server-env", mark, "--ready-timeout", "30s")...)
	r, err := result.Read(filepath.Join(dir, "decode-a.json"))
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, out, errs)
	}
	checkRunExit(t, code, r, out, errs)
	for _, tr := range r.Trials {
		owners := map[string]string{}
		for _, p := range tr.Health.Processes {
			owners[p.Name] = p.Owner
		}
		if owners["sim"] != health.OwnerServer || owners["perfgate.test"] != health.OwnerOther {
			t.Errorf("trial %d: owners %v, processes %+v", tr.Index, owners, tr.Health.Processes)
		}
		if tr.Valid || !strings.Contains(tr.InvalidReason, fmt.Sprintf("pid %d perfgate.test", os.Getpid())) {
			t.Errorf("trial %d: valid %v, reason %q", tr.Index, tr.Valid, tr.InvalidReason)
		}
		// The server's and perfgate's own load is read from /proc and
		// taken off the load average (gate/health, ownload.go).
		if h := tr.Health; h.OwnLoad != health.OwnCounted || h.Samples[len(h.Samples)-1].OwnLoad <= 0 || len(h.Notes) != 0 {
			t.Errorf("trial %d: own load %q, samples %+v, notes %q", tr.Index, h.OwnLoad, h.Samples, h.Notes)
		}
	}
}

// TestGateHealthHWSlowdown: perfgate gate records the runner's health the
// same way: HW-slowdown throttling invalidates the trials it measured.
func TestGateHealthHWSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end gate run against the simulator")
	}
	fakeGPUTools(t, slowGPU, noGPUProcess)
	ts := runSim(t)
	r, _ := serveGate(t, ts.URL)
	if len(r.Trials) == 0 {
		t.Fatal("no trials")
	}
	for _, tr := range r.Trials {
		if tr.Valid || tr.Health == nil || !strings.Contains(tr.InvalidReason, "GPU 0 hw_slowdown") {
			t.Errorf("trial %d: valid %v, reason %q", tr.Index, tr.Valid, tr.InvalidReason)
		}
	}
}

// TestRunHealthMistypedSetting: a PERFGATE_RUNNER_HEALTH that is none of
// off, record, on samples as on and says so in every trial.
func TestRunHealthMistypedSetting(t *testing.T) {
	fakeGPUTools(t, slowGPU, noGPUProcess)
	t.Setenv(session.HealthEnv, "of")
	r := healthRun(t)
	for _, tr := range r.Trials {
		if tr.Valid || !strings.Contains(strings.Join(tr.Warnings, "\n"), `PERFGATE_RUNNER_HEALTH="of" is none of off, record, on`) {
			t.Errorf("trial %d: valid %v, warnings %q", tr.Index, tr.Valid, tr.Warnings)
		}
	}
}
