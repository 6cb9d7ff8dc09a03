package server

import (
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr puts the server into its own process group (so Stop can
// signal every process it spawns) and asks the kernel to SIGKILL it when
// perfgate dies (PR_SET_PDEATHSIG). Without the latter a second Ctrl-C, a
// SIGKILL or a crash of perfgate leaves the server running as an orphan,
// holding the GPU and the port: its own process group does not get the
// terminal's signals, and nobody is left to run Stop. SIGKILL, not
// SIGTERM: with perfgate gone nobody would escalate if the server ignored
// a SIGTERM. Engine workers that vLLM spawns watch their parent and exit
// with it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startAndWait starts cmd, reports the start's error on started, and then
// waits for the process, calling exited with Wait's error.
//
// The parent-death signal is tied to the OS thread that forked the child,
// not to the process: Linux sends it when that thread exits. The Go
// runtime may end a thread (when a goroutine locked to it returns), so the
// fork happens on a goroutine locked to its thread that stays there,
// blocked in Wait, for as long as the server lives. Unlocking after Wait
// returns the thread to the runtime once the signal no longer matters.
func startAndWait(cmd *exec.Cmd, started chan<- error, exited func(error)) {
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited(cmd.Wait())
	}()
}
