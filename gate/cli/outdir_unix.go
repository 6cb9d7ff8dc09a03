//go:build unix

package cli

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting: a second
// perfgate fails at once instead of queueing behind an hour-long gate. The
// lock belongs to the open file and ends when it is closed or the process
// dies (a killed perfgate leaves no stale lock).
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}
