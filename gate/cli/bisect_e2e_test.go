package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/bisect"
)

// bisectRepo makes a throw-away git repository of n+1 commits, c0 (good)
// to cn (bad), whose file knobs holds the simulator's flags at that
// commit: empty up to culprit-1, then "--decode-scale <scale>". It returns
// the repository and the commits' ids.
func bisectRepo(t *testing.T, n, culprit int, scale string) (string, []string) {
	return bisectRepoOf(t, n, func(i int) string {
		if i >= culprit {
			return "--decode-scale " + scale
		}
		return ""
	})
}

// bisectRepoOf is bisectRepo with commit i's knobs given by knobs(i).
func bisectRepoOf(t *testing.T, n int, knobsOf func(int) string) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada Tester", "GIT_AUTHOR_EMAIL=ada@example.com",
			"GIT_COMMITTER_NAME=Ada Tester", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	var shas []string
	for i := 0; i <= n; i++ {
		knobs := knobsOf(i)
		if err := os.WriteFile(filepath.Join(repo, "knobs"), []byte(knobs+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "counter"), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "knobs", "counter")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		shas = append(shas, git("rev-parse", "HEAD"))
	}
	return repo, shas
}

func bisectMainArgs(ctx context.Context, args ...string) (ExitCode, string, string) {
	var out, errw bytes.Buffer
	code := Main(ctx, append([]string{"bisect"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errw})
	return code, out.String(), errw.String()
}

// bisectCmds are the build and server commands of the end-to-end test:
// the build writes the commit's knobs to builds/<sha>.knobs (git show, no
// checkout), the server is the simulator (this test binary as perfgate)
// started with them.
func bisectCmds(t *testing.T, repo string) (build, server string) {
	exe := runServerCmd(t) // skips under -short
	t.Setenv("CLI_TEST_PERFGATE_MAIN", "1")
	knobs := filepath.Join(t.TempDir(), "knobs")
	if err := os.Mkdir(knobs, 0o755); err != nil {
		t.Fatal(err)
	}
	build = fmt.Sprintf(`sh -c 'git -C "%s" show {sha}:knobs > "%s/{sha}"'`, repo, knobs)
	server = fmt.Sprintf(`sh -c 'exec %s sim --addr 127.0.0.1:0 --step-base 500us --decode-fixed 4500us $(cat "%s/{sha}")'`, strings.ReplaceAll(exe, "'", ""), knobs)
	return build, server
}

// TestBisectFindsPlantedCulprit is the end-to-end check: 32
// commits after the good one, commit 21 makes decode 50 % slower (an
// effect no stalled block on a loaded machine can hide), every block a
// fresh simulator start. bisect names commit 21 with its subject and
// author and exits 0, after a first run whose budget ran out (exit 1)
// and whose blocks it keeps; a rerun measures nothing again, a search for
// another metric reuses the experiments; the JSON and markdown are
// written. 88 blocks of one 0.25 s trial (the first look of every
// experiment decides a 50 % change; --alpha 0.2 lets eight blocks do it),
// about 35 s, two to three minutes under -race where every start of the
// test binary costs a second; bounded by the context.
func TestBisectFindsPlantedCulprit(t *testing.T) {
	repo, shas := bisectRepo(t, 32, 21, "1.5")
	build, server := bisectCmds(t, repo)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	args := []string{"--repo", repo, "--good", shas[0], "--bad", shas[32], "-w", "testdata/gate/decode-a.yaml", "-o", dir,
		"--build-cmd", build, "--server-cmd", server, "--blocks", "8", "--more-blocks", "4", "--max-blocks", "16", "--block-trials", "1", "--alpha", "0.2",
		"--ready-timeout", "30s", "--max-dispatch-lag-ms", "1000"}
	// First with a budget that holds the ends and one step: exit 1, the
	// range narrowed to half, everything measured kept.
	code, out, errs := bisectMainArgs(ctx, append(append([]string(nil), args...), "--budget", "28")...)
	if code != ExitRegression || !strings.Contains(out, "not-found: no commit named within the budget") {
		t.Fatalf("budget 28: exit %v; want 1, not found within the budget\nstdout:\n%s\nstderr (tail):\n%s", code, out, tail(errs, 3000))
	}
	// Then the whole search: it continues from what the first measured.
	code, out, errs = bisectMainArgs(ctx, args...)
	if !strings.Contains(errs, "8 block(s) measured before, kept") {
		t.Errorf("the second run did not keep the first one's blocks:\n%s", tail(errs, 3000))
	}
	if code != ExitPass || !strings.Contains(out, "culprit "+shas[21]+` "commit 21" by Ada Tester <ada@example.com>`) {
		t.Fatalf("exit %v; want 0 naming commit 21\nstdout:\n%s\nstderr (tail):\n%s", code, out, tail(errs, 3000))
	}
	t.Logf("stdout:\n%s", out)
	f, err := os.Open(filepath.Join(dir, "bisect-tpot_ms.p50.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := bisect.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != bisect.Found || len(res.Culprits) != 1 || res.Culprits[0].Effect.Worse < 20 || len(res.Steps) < 5 || res.GPUSeconds <= 0 {
		t.Errorf("result: status %s, culprits %+v, %d steps, %.0f GPU s", res.Status, res.Culprits, len(res.Steps), res.GPUSeconds)
	}
	md, err := os.ReadFile(filepath.Join(dir, "bisect-tpot_ms.p50.md"))
	if err != nil || !strings.Contains(string(md), "**Found.**") {
		t.Errorf("markdown: %v\n%s", err, md)
	}
	builds, _ := filepath.Glob(filepath.Join(dir, "builds", "*.ok"))
	if len(builds) != len(res.Steps)+2 {
		t.Errorf("%d builds for %d steps: want one per commit measured (the ends and each midpoint)", len(builds), len(res.Steps))
	}
	if !strings.Contains(errs, "ETA") {
		t.Errorf("no progress with an ETA on stderr:\n%s", tail(errs, 2000))
	}

	// The same search again: every experiment is read back, nothing is
	// built or started, and the answer is the same.
	code, out2, errs2 := bisectMainArgs(ctx, args...)
	if code != ExitPass || !strings.Contains(out2, "culprit "+shas[21]) {
		t.Fatalf("rerun: exit %v\n%s\n%s", code, out2, tail(errs2, 3000))
	}
	if strings.Contains(errs2, "starting the server") || strings.Contains(errs2, "bisect: building") {
		t.Errorf("the rerun measured or built again:\n%s", tail(errs2, 3000))
	}
	// A search for another metric reads the same experiments back (the
	// result files hold every metric) and writes its own files beside.
	code, out3, errs3 := bisectMainArgs(ctx, append(append([]string(nil), args...), "--metric", "e2el_ms.p50")...)
	if code != ExitPass || !strings.Contains(out3, "culprit "+shas[21]) || !strings.Contains(errs3, "measured before, kept") {
		t.Errorf("--metric e2el_ms.p50: exit %v\n%s\n%s", code, out3, tail(errs3, 3000))
	}
	if _, err := os.Stat(filepath.Join(dir, "bisect-e2el_ms.p50.md")); err != nil {
		t.Error(err)
	}
}

// TestBisectServerFailureStops: the midpoint's server does not start
// (commit 16 passes the simulator a flag it does not know): the search
// stops with exit 3, writes where it stood (status interrupted, the
// failure named), and keeps the ends' experiment for the next run.
func TestBisectServerFailureStops(t *testing.T) {
	repo, shas := bisectRepoOf(t, 32, func(i int) string {
		switch {
		case i == 16:
			return "--no-such-flag"
		case i >= 21:
			return "--decode-scale 1.5"
		}
		return ""
	})
	build, server := bisectCmds(t, repo)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"--repo", repo, "--good", shas[0], "--bad", shas[32], "-w", "testdata/gate/decode-a.yaml", "-o", dir,
		"--build-cmd", build, "--server-cmd", server, "--blocks", "8", "--more-blocks", "4", "--max-blocks", "16", "--block-trials", "1", "--alpha", "0.2",
		"--ready-timeout", "30s", "--max-dispatch-lag-ms", "1000"}
	code, out, errs := bisectMainArgs(ctx, args...)
	if code != ExitRunFailed || !strings.Contains(out, "interrupted: the search stopped") {
		t.Fatalf("exit %v; want 3, stopped\nstdout:\n%s\nstderr (tail):\n%s", code, out, tail(errs, 3000))
	}
	t.Logf("stdout:\n%s", out)
	f, err := os.Open(filepath.Join(dir, "bisect-tpot_ms.p50.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := bisect.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != bisect.Interrupted || res.Ends == nil || res.Ends.Blocks != 8 || len(res.Steps) != 1 || !strings.Contains(res.Steps[0].Why, "stopped") {
		t.Errorf("result: status %s, ends %+v, steps %+v", res.Status, res.Ends, res.Steps)
	}
	// The next run keeps the ends' blocks and stops at the same commit.
	code, _, errs = bisectMainArgs(ctx, args...)
	if code != ExitRunFailed || !strings.Contains(errs, "8 block(s) measured before, kept") {
		t.Errorf("rerun: exit %v\n%s", code, tail(errs, 3000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestBisectInputErrors: bad input is exit 2 with the flag named, before
// anything is built or started.
func TestBisectInputErrors(t *testing.T) {
	repo, shas := bisectRepo(t, 3, 2, "1.5")
	base := []string{"--repo", repo, "-w", "testdata/gate/decode-a.yaml", "-o", t.TempDir()}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no good", []string{"--bad", shas[3], "--server-cmd", "sim {sha}"}, "--good and --bad are required"},
		{"no sha", []string{"--good", shas[0], "--bad", shas[3], "--server-cmd", "perfgate sim"}, "neither --build-cmd nor --server-cmd holds {sha}"},
		{"reversed", []string{"--good", shas[3], "--bad", shas[0], "--server-cmd", "sim {sha}"}, "is not an ancestor of --bad"},
		{"unknown ref", []string{"--good", "nosuchref", "--bad", shas[3], "--server-cmd", "sim {sha}"}, "--good nosuchref: not a commit"},
		{"odd blocks", []string{"--good", shas[0], "--bad", shas[3], "--server-cmd", "sim {sha}", "--blocks", "7"}, "blocks 7"},
		{"metric", []string{"--good", shas[0], "--bad", shas[3], "--server-cmd", "sim {sha}", "--metric", "nope"}, `metric "nope"`},
	} {
		code, out, errs := bisectMainArgs(context.Background(), append(append([]string(nil), base...), c.args...)...)
		if code != ExitInvalid || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %v, stderr %q, stdout %q; want 2 saying %q", c.name, code, errs, out, c.want)
		}
	}
}
