//go:build unix

package fingerprint

import (
	"os/exec"
	"syscall"
)

// setGroup runs cmd in a process group of its own, so killGroup reaches
// every process it forks.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills cmd's process group; a group already gone is no error.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
