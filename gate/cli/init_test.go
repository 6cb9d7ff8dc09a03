package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
)

// TestInitEndToEnd: init against the simulator with a per-start offset of
// CV 2 % (perfgate sim --session-cv 0.02, launched by init itself) writes
// the configuration, the shipped workload it was given by name, the three
// workflows, the calibration and a first baseline; prints progress with
// an ETA and the closing table; and a second run without --force refuses,
// naming the files it would overwrite, and changes nothing. Small and
// bounded: one smoke workload, 3 starts x 2 trials, at most 8 trials per
// arm for the baseline.
func TestInitEndToEnd(t *testing.T) {
	exe := runServerCmd(t) // skips under -short
	dir := t.TempDir()
	// 5 ms steps, as in the calibration test, so a loaded test machine's
	// timer overshoot is small beside a step.
	serverCmd := exe + " sim --addr 127.0.0.1:0 --session-cv 0.02 --step-base 500us --decode-fixed 4500us"
	args := []string{"init", "--dir", dir, "--server-cmd", serverCmd, "--server-env", "CLI_TEST_PERFGATE_MAIN=1",
		"--workloads", "smoke-chat-c4", "--profile", "sim-runner", "--restarts", "3", "--trials", "2",
		"--min-trials", "3", "--max-trials", "8", "--max-blocks", "16", "--ready-timeout", "30s", "--max-dispatch-lag-ms", "1000",
		// The screen against the calibration's within-session spread (3
		// starts x 2 trials, a rough estimate) is baseline update's, tested
		// there; a shared test machine's stalled trial must not decide
		// whether init wires its stages together.
		"--accept-noisy"}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr})
	if code != ExitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	t.Logf("stdout:\n%s", stdout.String())
	written := []string{"perfgate.yaml", "workloads/smoke-chat-c4.yaml", ".github/workflows/perfgate-pr.yml",
		".github/workflows/perfgate-nightly.yml", ".github/workflows/perfgate-release.yml",
		"baselines/sim-runner/calibration/noise.json", "baselines/sim-runner/smoke-chat-c4.json"}
	before := map[string][]byte{}
	for _, name := range written {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("init did not write %s: %v", name, err)
		}
		before[name] = data
	}
	cfg := string(before["perfgate.yaml"])
	for _, want := range []string{"profile: sim-runner", "  - workloads/smoke-chat-c4.yaml", "tolerances:", "# Why this PR check"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("perfgate.yaml lacks %q:\n%s", want, cfg)
		}
	}
	// The configuration loads as perfgate reads it.
	var cout, cerr bytes.Buffer
	if code := Main(context.Background(), []string{"config", "--config", filepath.Join(dir, "perfgate.yaml")}, Streams{Out: &cout, Err: &cerr}); code != ExitPass {
		t.Errorf("perfgate config on the written file: exit %d: %s", code, cerr.String())
	}
	if n, err := (baseline.Store{Root: filepath.Join(dir, "baselines")}).ReadNoise("sim-runner"); err != nil || n.Restarts != 3 || n.TrialsPerRestart != 2 {
		t.Errorf("calibration: %+v, %v", n, err)
	}
	b, err := result.Read(filepath.Join(dir, "baselines/sim-runner/smoke-chat-c4.json"))
	if err != nil || b.Provenance == nil || len(b.ValidTrials()) < 3 {
		t.Errorf("baseline: %v (%d valid trials)", err, len(b.ValidTrials()))
	}
	// A restarted check (the noise decides whether init chooses one) has
	// its first baseline recorded over as many starts as the PR check's.
	if _, after, ok := strings.Cut(cfg, "\ntrials:"); ok && b != nil {
		section, _, _ := strings.Cut(after, "\n\n") // calibrate: has restarts of its own
		if _, k, ok := strings.Cut(section, "\n  restarts: "); ok {
			want, _ := strconv.Atoi(strings.Fields(k)[0])
			starts := map[int]bool{}
			for _, tr := range b.Trials {
				starts[tr.Start] = true
			}
			if len(starts) != want || starts[0] {
				t.Errorf("trials.restarts: %d, but the first baseline's trials came from starts %v", want, starts)
			}
			t.Logf("init chose trials.restarts: %d; the first baseline has %d starts", want, len(starts))
		}
	}
	for _, want := range []string{"decides / passes at", "GPU time per PR check", "PR check: "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the closing table lacks %q", want)
		}
	}
	if !strings.Contains(stderr.String(), "init: [") || !strings.Contains(stderr.String(), "ETA") {
		t.Errorf("no progress line with an ETA:\n%s", stderr.String())
	}

	// Again without --force: refused, every existing file named, nothing
	// touched.
	stdout.Reset()
	stderr.Reset()
	code = Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr})
	if code != ExitInvalid {
		t.Fatalf("second run: exit %d, want 2\nstderr:\n%s", code, stderr.String())
	}
	for _, name := range written {
		if name == "workloads/smoke-chat-c4.yaml" {
			continue // the same shipped bytes are no clash
		}
		if !strings.Contains(stderr.String(), filepath.FromSlash(name)) {
			t.Errorf("the refusal does not name %s: %s", name, stderr.String())
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Equal(data, before[name]) {
			t.Errorf("the refused run changed %s", name)
		}
	}
	if !strings.Contains(stderr.String(), "--force") {
		t.Errorf("the refusal does not say how to overwrite: %s", stderr.String())
	}
}

// TestInitRefuses: bad input is refused before anything is written or
// started, naming the flag.
func TestInitRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init"}, "--server-cmd is required"},
		{[]string{"init", "--server-cmd", "x", "--workloads", "no-such-workload"}, `--workloads: "no-such-workload" is neither "smoke", a shipped workload (`},
		{[]string{"init", "--server-cmd", "x", "--restarts", "2"}, "--restarts 2 --trials 3: calibration needs at least 3 starts"},
		{[]string{"init", "--server-cmd", "x", "--profile", "../up"}, "--profile:"},
		{[]string{"init", "--server-cmd", "x > log"}, "--server-cmd"},
	} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), append(tc.args, "--dir", dir), Streams{Out: &stdout, Err: &stderr})
		if code != ExitInvalid || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: wrote %d entries before refusing", tc.args, len(entries))
		}
	}
}

// TestInitWorkloads: "smoke" is the shipped smoke set and a shipped name
// its file, both copied into workloads/; anything else is a file or glob
// under --dir, listed relative to it; an unknown name lists the shipped
// ones.
func TestInitWorkloads(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "perf"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"perf/a.yaml", "perf/b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		given      []string
		list       string
		copies     int
		wantErrSub string
	}{
		{[]string{"smoke"}, "workloads/smoke-burst-c4.yaml,workloads/smoke-chat-c4.yaml,workloads/smoke-poisson-r20.yaml,workloads/smoke-prefix-c8.yaml", 4, ""},
		{[]string{"q7b-512-256-c32", "smoke-chat-c4.yaml"}, "workloads/q7b-512-256-c32.yaml,workloads/smoke-chat-c4.yaml", 2, ""},
		{[]string{"perf/*.yaml"}, "perf/a.yaml,perf/b.yaml", 0, ""},
		{[]string{"nope"}, "", 0, `"nope" is neither "smoke", a shipped workload (a100-128-4,`},
		{[]string{" "}, "", 0, "no workloads given"},
	} {
		list, copies, err := initWorkloads(dir, tc.given)
		if tc.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErrSub) {
				t.Errorf("%v: error %v, want %q", tc.given, err, tc.wantErrSub)
			}
			continue
		}
		if err != nil || strings.Join(list, ",") != tc.list || len(copies) != tc.copies {
			t.Errorf("%v: %v, %d copies, %v; want %s and %d copies", tc.given, list, len(copies), err, tc.list, tc.copies)
		}
	}
}
