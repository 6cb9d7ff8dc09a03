package session

import (
	"fmt"
	"os"
	"strconv"
)

// procPids lists the host's processes, /proc's numeric entries, for the
// runner-health hook to find the launched server's process tree and
// count its CPU use as the server's own load rather than a neighbour's
// (gate/health, ownload.go).
func procPids() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing /proc: %w", err)
	}
	pids := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// procThreads lists the threads of /proc/<proc> (a pid, or "self"), so
// the own load counts the time they were runnable (their schedstat).
func procThreads(proc string) ([]int, error) {
	ents, err := os.ReadDir("/proc/" + proc + "/task")
	if err != nil {
		return nil, fmt.Errorf("listing the threads of /proc/%s: %w", proc, err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil && tid > 0 {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
