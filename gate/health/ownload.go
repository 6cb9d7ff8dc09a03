package health

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// The load average counts every runnable task on the host, the server
// under test and perfgate's own client included. A GPU engine keeps a few
// CPU threads busy, well under a GPU runner's cores, but an engine that
// infers on the CPU (ollama without a GPU) or the simulator on a 2-CPU
// runner keeps the load above the cores by itself, and every trial would
// read "runner busy". So the hook also reads, at every sample, how long
// the threads of the launched server's process tree and of perfgate's own
// process were runnable (on a CPU or waiting for one: schedstat, what the
// load average counts), damps it over the last minute as the kernel damps
// the load average (OwnLoad), and the busy-host rule reads the load less
// that: only a neighbour's load counts.
//
// Where schedstat cannot be read the own load is CPU time used (utime +
// stime), which errs towards "busy": a thread that waits for a CPU counts
// in the load but uses none, so under contention the server's share of
// the load exceeds its CPU use and the difference is left to the
// neighbours.

// Whose load Health.OwnLoad says was counted.
const (
	// OwnCounted: the samples' OwnLoad holds the load of the launched
	// server's process tree (its process group and every descendant) and
	// of perfgate's own process.
	OwnCounted = "the launched server's process tree and perfgate"
	// OwnAttached: the server was given by URL, so perfgate does not know
	// its processes; its load counts as a neighbour's.
	OwnAttached = "not counted: the server was given by URL, so its processes are unknown and its CPU use counts as a neighbour's"
)

// ClockTicks is the unit of /proc's CPU times (USER_HZ): 100 on every
// Linux architecture perfgate runs on.
const ClockTicks = 100

// LoadTau is the time constant of the one-minute load average, in
// seconds: the kernel keeps load1 = load1·e + runnable·(1-e) with
// e = exp(-5 s / 60 s) every five seconds.
const LoadTau = 60.0

// Damp is the damped own load after dt seconds in which the server and
// perfgate kept cores CPUs busy on average, from prev: the kernel's update
// of the load average over an interval of any length, so OwnLoad lags a
// change of the server's CPU use exactly as Load1 does.
func Damp(prev, cores, dt float64) float64 {
	if dt <= 0 || math.IsNaN(dt) {
		return prev
	}
	e := math.Exp(-dt / LoadTau)
	return prev*e + cores*(1-e)
}

// TreeCPU sums, in clock ticks, the CPU time of the process tree of the
// server whose process group is group: every process in stats that is in
// the group or descends from it (Owner's rule), with the time of the
// children each waited for, so a worker that exits between two samples
// still counts once, in its parent. n is the number of processes counted
// (0: the server is gone).
func TreeCPU(stats map[int]ProcStat, group int) (ticks uint64, n int) {
	for _, pid := range TreeMembers(stats, group) {
		st := stats[pid]
		ticks += st.CPU + st.Children
		n++
	}
	return ticks, n
}

// TreeMembers are the pids in stats in the process group group or
// descended from it (Owner's rule), in ascending order.
func TreeMembers(stats map[int]ProcStat, group int) []int {
	stat := func(pid int) (ProcStat, bool) {
		st, ok := stats[pid]
		return st, ok
	}
	var out []int
	for pid, st := range stats {
		if inTree(pid, st, group, stat) {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// ParseSchedstat reads /proc/<pid>/task/<tid>/schedstat: the thread's
// time on a CPU and its time waiting on a run queue, in nanoseconds (the
// third field, its time slices, is not needed). Their sum is the time the
// thread was runnable, what the load average counts.
func ParseSchedstat(data []byte) (run, wait uint64, err error) {
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("schedstat: %d fields, want 3", len(f))
	}
	run, err1 := strconv.ParseUint(f[0], 10, 64)
	wait, err2 := strconv.ParseUint(f[1], 10, 64)
	// More than 2^62 ns (146 years) is no reading.
	if err1 != nil || err2 != nil || run >= 1<<62 || wait >= 1<<62 {
		return 0, 0, fmt.Errorf("schedstat: %q %q are not nanoseconds", clip(f[0]), clip(f[1]))
	}
	return run, wait, nil
}

// ParseUptime returns the seconds since boot of /proc/uptime.
func ParseUptime(data []byte) (float64, error) {
	return firstNumber(data, "/proc/uptime", 1e12, "%q is not a number of seconds")
}

// hostLoad is the load the busy-host rule judges and how the label and
// the warning name it (what, and the summary field it is in): the load
// less the server's and perfgate's own when h counted it, the whole load
// average otherwise.
func hostLoad(h *result.Health) (load float64, label, what, field string) {
	s := h.Summary
	switch h.OwnLoad {
	case OwnCounted:
		return s.MaxOtherLoad1, fmt.Sprintf("others' load above the %d CPUs", h.CPUs),
			"the load average less the server's and perfgate's own load", "health.summary.max_other_load1"
	case "":
		return s.MaxLoad1, fmt.Sprintf("load above the %d CPUs", h.CPUs), "the load average", "health.summary.max_load1"
	}
	return s.MaxLoad1, fmt.Sprintf("load above the %d CPUs, the attached server's own included", h.CPUs),
		"the load average, the server's own load included since it was given by URL,", "health.summary.max_load1"
}

// maxOtherLoad is the highest load of the samples less their own load.
func maxOtherLoad(samples []result.HealthSample) float64 {
	m := 0.0
	for _, s := range samples {
		m = max(m, s.Load1-s.OwnLoad)
	}
	return m
}
