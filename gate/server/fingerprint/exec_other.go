//go:build !unix

package fingerprint

import "os/exec"

// setGroup does nothing where there are no process groups.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills the tool itself; WaitDelay still bounds the wait for a
// child holding its pipes.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
