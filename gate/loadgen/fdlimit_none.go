//go:build !linux && !darwin

package loadgen

import "errors"

// osLimits reports no limit where it is not read (Windows; BSDs, whose Rlimit fields are signed).
type osLimits struct{}

func (osLimits) nofile() (uint64, uint64, bool) { return 0, 0, false }
func (osLimits) raise(uint64) error             { return errors.New("no RLIMIT_NOFILE") }
func (osLimits) open() int                      { return -1 }
