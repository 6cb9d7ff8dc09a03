//go:build linux || darwin

package loadgen

import (
	"os"
	"syscall"
)

// osLimits is the process's RLIMIT_NOFILE. Go raises the soft limit to the
// hard one at start-up on most systems, so raise matters where it did not
// (or where the hard limit was raised since).
type osLimits struct{}

func (osLimits) nofile() (uint64, uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, 0, false
	}
	return uint64(l.Cur), uint64(l.Max), true
}

func (osLimits) raise(soft uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	l.Cur = soft
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}

// open counts /proc/self/fd (Linux) or /dev/fd (macOS).
func (osLimits) open() int {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		if es, err := os.ReadDir(dir); err == nil {
			return len(es)
		}
	}
	return -1
}
