package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockName is the lock file perfgate keeps in every output directory it
// writes. It stays after the run: removing it would let a second perfgate
// lock a new file while a third still holds the old one.
const lockName = ".perfgate.lock"

// errLocked says another process holds the output directory's lock.
var errLocked = errors.New("locked")

// outputDir readies dir for a run's files before the first request is
// sent, which is when a problem costs nothing: it creates dir and its
// subdirectories (e.g. results), proves each writable, and takes an
// exclusive lock on dir for as long as the run lasts, so two perfgates
// never mix their files in one directory. flag names the setting in
// errors. The caller calls release when it has written everything.
//
// Both `perfgate run` and `perfgate gate` use it: a gate that measured for
// an hour and then could not write its results loses the hour.
func outputDir(flag, dir string, subdirs ...string) (release func(), err error) {
	if dir == "" {
		return nil, fmt.Errorf("%s: no output directory given", flag)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s %s: cannot create the output directory: %w", flag, dir, err)
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the output directory is not writable: %w", flag, dir, err)
	}
	if err := lockFile(f); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
				holder = fmt.Sprintf(" (pid %d)", pid)
			}
		}
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%s %s: another perfgate%s is writing this output directory (it holds %s); wait for it to finish or choose another directory", flag, dir, holder, path)
		}
		return nil, fmt.Errorf("%s %s: locking the output directory: %w", flag, dir, err)
	}
	release = func() { f.Close() } // closing the file drops the lock
	// The pid is only a hint for the error above; the lock is the flock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	for _, sub := range append([]string{""}, subdirs...) {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			release()
			return nil, fmt.Errorf("%s %s: cannot create %s: %w", flag, dir, d, err)
		}
		probe, err := os.CreateTemp(d, ".perfgate-write-check-*")
		if err != nil {
			release()
			return nil, fmt.Errorf("%s %s: %s is not writable: %w", flag, dir, d, err)
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return release, nil
}
