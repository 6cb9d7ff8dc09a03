//go:build !linux

package server

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the server into its own process group, so Stop can
// signal every process it spawns. Outside Linux there is no parent-death
// signal: a server outlives a perfgate that is killed.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// startAndWait starts cmd, reports the start's error on started, and then
// waits for the process, calling exited with Wait's error.
func startAndWait(cmd *exec.Cmd, started chan<- error, exited func(error)) {
	go func() {
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited(cmd.Wait())
	}()
}
