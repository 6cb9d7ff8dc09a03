//go:build !linux

package server

import "syscall"

// groupAlive reports whether any process of group pgid exists (zombies
// included: without /proc they cannot be told apart).
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
