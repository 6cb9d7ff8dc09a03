//go:build unix

package fingerprint

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecInFindsToolsOnItsOwnPath: ExecIn looks tools up on the PATH of
// the environment it is given and runs them with it, never with the
// process's, so a test's fake tool is its own and the tests run in
// parallel.
func TestExecInFindsToolsOnItsOwnPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fake-tool"), []byte("#!/bin/sh\necho \"mark=$EXECIN_MARK args=$*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "not-executable"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + dir + string(os.PathListSeparator) + filepath.Dir(sh)
	tests := []struct {
		name    string
		environ []string
		tool    string
		want    string // output; "" when an error is expected
		wantErr error
	}{
		{"found on the given PATH, run with the given environment", []string{path, "EXECIN_MARK=a"}, "fake-tool", "mark=a args=x y\n", nil},
		{"the last PATH entry wins", []string{"PATH=/nonexistent", path}, "fake-tool", "mark= args=x y\n", nil},
		{"not on the given PATH", []string{"PATH=" + t.TempDir()}, "fake-tool", "", exec.ErrNotFound},
		{"no PATH at all", []string{"EXECIN_MARK=a"}, "fake-tool", "", exec.ErrNotFound},
		{"a file without the execute bit is not a tool", []string{path}, "not-executable", "", exec.ErrNotFound},
		{"a relative PATH entry is refused", []string{"PATH=" + rel}, "fake-tool", "", exec.ErrDot},
		{"a name with a slash is used as it is", []string{"EXECIN_MARK=b"}, filepath.Join(dir, "fake-tool"), "mark=b args=x y\n", nil},
	}
	for _, tc := range tests {
		out, err := ExecIn(tc.environ)(context.Background(), tc.tool, "x", "y")
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || string(out) != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, out, err, tc.want)
		}
	}
	if strings.Contains(os.Getenv("PATH"), dir) {
		t.Fatal("the process's PATH was changed")
	}
}
