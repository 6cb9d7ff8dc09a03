package git

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

// newRepo is an empty repository with one commit, configured without the
// machine's global settings.
func newRepo(t *testing.T) Repo {
	t.Helper()
	needGit(t)
	r := Repo{Dir: t.TempDir(), Environ: []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		if _, err := r.Run(context.Background(), args...); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestRunErrorHidesSecrets: a fetch from a remote whose URL holds a token
// fails, and neither the environment's token nor the URL's reaches the
// error, while git's message does.
func TestRunErrorHidesSecrets(t *testing.T) {
	r := newRepo(t)
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	r.Environ = append(r.Environ, "GITHUB_TOKEN="+token)
	url := "https://x-access-token:" + token + "@127.0.0.1:1/o/r.git"
	if _, err := r.Run(context.Background(), "remote", "add", "origin", url); err != nil {
		t.Fatal(err)
	}
	_, err := r.Run(context.Background(), "fetch", "--quiet", url, "main")
	if err == nil {
		t.Fatal("fetch from a closed port succeeded")
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("error shows the token: %v", err)
	}
	if !strings.Contains(err.Error(), "git fetch") {
		t.Errorf("error does not name the call: %v", err)
	}
	// A command that prints the environment's token on stderr (a
	// credential helper's complaint): the first line is kept, the token
	// is not.
	r.Environ = append(r.Environ, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=alias.leak", "GIT_CONFIG_VALUE_0=!echo \"auth failed for $GITHUB_TOKEN\" >&2; exit 1")
	_, err = r.Run(context.Background(), "leak")
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "auth failed for") {
		t.Errorf("error %v: want git's line without the token", err)
	}
}

// TestRunTimesOut: a call past Repo.Timeout is stopped and says so.
func TestRunTimesOut(t *testing.T) {
	r := newRepo(t)
	r.Timeout, r.waitDelay = 50*time.Millisecond, 50*time.Millisecond
	// An alias running sleep is the simplest hang; the sleep outlives the
	// killed git, holding its pipes, which waitDelay bounds.
	r.Environ = append(r.Environ, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=alias.hang", "GIT_CONFIG_VALUE_0=!sleep 30")
	start := time.Now()
	_, err := r.Run(context.Background(), "hang")
	if err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Errorf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the hung call took %v", d)
	}
}

// TestStreamStopsOnReaderError: an error of the reader is returned and git
// is not waited for to the end of its output.
func TestStreamStopsOnReaderError(t *testing.T) {
	r := newRepo(t)
	stop := errors.New("stop")
	err := r.Stream(context.Background(), []string{"log", "--format=%H"}, func(rd io.Reader) error {
		buf := make([]byte, 1)
		if _, err := rd.Read(buf); err != nil {
			return err
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Errorf("Stream = %v, want the reader's error", err)
	}
}

// TestCapped: output past the cap is counted, not kept, and never fails
// the writer (git must not die of a full pipe).
func TestCapped(t *testing.T) {
	c := &capped{max: 4}
	for _, p := range []string{"ab", "cde", "f"} {
		if n, err := c.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if c.buf.String() != "abcd" || !c.over {
		t.Errorf("kept %q, over %v", c.buf.String(), c.over)
	}
}
