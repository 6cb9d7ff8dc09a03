//go:build unix

package baseline

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on the directory f without waiting;
// busy reports that another process (or another open of it) holds it. The
// lock belongs to the open directory and ends when it is closed or the
// process dies, so a killed promotion leaves no stale lock, and locking
// the directory itself leaves no lock file in the reviewed store.
func tryLock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
