package health

// Owners of a GPU compute process (result.GPUProcess.Owner).
const (
	// OwnerServer: the process is the launched server or one of its
	// descendants (its process group).
	OwnerServer = "server"
	// OwnerAssumed: perfgate cannot see the process's ancestry (the server
	// was not launched by perfgate, runs in a container, or nvidia-smi
	// reports a pid from another PID namespace) and the process was
	// already on the GPU at the run's first sample, when the server was
	// ready: it is taken to be the server's (see Owner).
	OwnerAssumed = "assumed server"
	// OwnerOther: anything else; it invalidates the trial.
	OwnerOther = "other"
)

// maxDepth bounds the walk up the process tree (a cycle in a corrupt or
// racing /proc must not loop forever).
const maxDepth = 64

// Owner decides whose compute process pid is. serverGroup is the launched
// server's process group id (its pid), 0 when perfgate did not launch it;
// stat reads /proc/<pid>/stat (false when the pid is not visible here);
// atStart holds the pids on the GPU at the run's first sample.
//
// A visible process belongs to the server when it or an ancestor is in the
// server's process group (a worker that called setsid is still a
// descendant). A server command that starts a container (docker run, or
// podman) has its GPU processes under the container runtime instead: a
// visible process outside the tree that started after the server was
// launched and was on the GPU at the first sample, when the server was
// ready, is taken to be the server's. Without a launched server, or for a
// pid this PID namespace cannot see, only atStart can tell: the server was
// on the GPU before the first trial, and a process that appeared later is
// another.
func Owner(pid, serverGroup int, stat func(pid int) (ProcStat, bool), atStart map[int]bool) string {
	if serverGroup > 0 {
		if st, ok := stat(pid); ok {
			if inTree(pid, st, serverGroup, stat) {
				return OwnerServer
			}
			if srv, ok := stat(serverGroup); ok && atStart[pid] && st.Start > 0 && st.Start >= srv.Start {
				return OwnerAssumed
			}
			return OwnerOther
		}
	}
	if atStart[pid] {
		return OwnerAssumed
	}
	return OwnerOther
}

// inTree reports whether pid (whose stat is st) or an ancestor is in the
// process group serverGroup.
func inTree(pid int, st ProcStat, serverGroup int, stat func(pid int) (ProcStat, bool)) bool {
	for p, depth := pid, 0; depth < maxDepth; depth++ {
		if p == serverGroup || st.PGRP == serverGroup {
			return true
		}
		if st.PPID <= 1 || st.PPID == p {
			return false
		}
		p = st.PPID
		var ok bool
		if st, ok = stat(p); !ok {
			return false
		}
	}
	return false
}
