package fingerprint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ExecIn is Exec in the environment environ ("NAME=value", as
// os.Environ returns it): the tool is found on environ's PATH, not the
// process's, and runs with environ. A command runs its tools in the
// environment it was given (cli's Streams.Environ), so a test that puts a
// fake nvidia-smi first on PATH does so for its own run only and can run
// in parallel with others. A nil environ is Exec.
func ExecIn(environ []string) Runner {
	if environ == nil {
		return Exec
	}
	env := append([]string(nil), environ...)
	return func(ctx context.Context, name string, args ...string) ([]byte, error) {
		return execIn(ctx, env, name, args)
	}
}

// lookPath finds name as exec.LookPath does, on the PATH of environ
// when environ is not nil. A name with a slash is used as it is. Not
// found wraps exec.ErrNotFound, as exec.LookPath's error does.
func lookPath(name string, environ []string) (string, error) {
	if environ == nil || strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	var path string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "PATH" {
			path = v // the last entry wins, as in os.Environ's order
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "." // POSIX: an empty PATH entry is the working directory
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			if !filepath.IsAbs(p) {
				// Like exec.LookPath since Go 1.19: a tool found through
				// a relative PATH entry is refused, not run from the
				// working directory by accident.
				return "", &exec.Error{Name: name, Err: exec.ErrDot}
			}
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}
