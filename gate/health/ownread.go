package health

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ownState is the hook's running own load (ownload.go), kept across
// trials: the load average remembers the last minute whatever the trial,
// so the own load it is compared with must too.
type ownState struct {
	ok       bool
	group    int       // the server's process group at the last reading
	runnable bool      // the readings are runnable time (schedstat), else CPU time
	tree     float64   // its tree's seconds then
	self     float64   // perfgate's seconds then
	at       time.Time // when
	load     float64   // the damped own load
}

func (k *Hook) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// ownSample reads the time the server's process tree (process group
// group) and perfgate's own process were runnable, and returns the own
// load damped up to now. Runnable time is what the load average counts:
// each thread's time on a CPU plus its time waiting for one
// (/proc/<pid>/task/<tid>/schedstat), so a server whose threads queue for
// the CPUs counts as much as it loads them. Where schedstat cannot be read
// (Threads nil, a kernel without it, another user's threads) it is CPU
// time (utime + stime, and the children each process waited for), which
// leaves the waiting to the neighbours and so errs towards busy; the
// readings of one run keep one kind (a change of kind starts afresh).
//
// The first reading has no interval before it: it is seeded with what the
// load average remembers of the server's and perfgate's lives so far
// (seed): the server's start-up and the warm-up. A new group (the server
// restarted) counts its whole tree's time into the interval since the
// last reading, during which it started. perfgate's own time is its
// process's, not its children's: the server is its child, and would count
// twice when it is reaped.
func (k *Hook) ownSample(group int) (float64, error) {
	pids, err := k.Pids()
	if err != nil {
		return 0, fmt.Errorf("processes not listed: %w", err)
	}
	stats := make(map[int]ProcStat, len(pids))
	for _, pid := range pids {
		if st, ok := k.procStat(pid); ok {
			stats[pid] = st
		}
	}
	srv, ok := stats[group]
	if !ok {
		return 0, fmt.Errorf("the server (pid %d) is not in /proc", group)
	}
	data, err := k.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, fmt.Errorf("perfgate's own CPU time not read: %w", err)
	}
	self, err := ParseProcStat(data)
	if err != nil {
		return 0, err
	}
	members := TreeMembers(stats, group)
	cur := ownState{ok: true, group: group, runnable: true}
	var rerr error
	for _, pid := range members {
		sec, err := k.runnable(strconv.Itoa(pid))
		if err != nil {
			rerr = err
			break
		}
		cur.tree += sec
	}
	if rerr == nil {
		cur.self, rerr = k.runnable("self")
	}
	if rerr != nil {
		ticks, _ := TreeCPU(stats, group)
		cur = ownState{ok: true, group: group, tree: float64(ticks) / ClockTicks, self: float64(self.CPU) / ClockTicks}
	}
	cur.at = k.now()
	k.mu.Lock()
	prev := k.own
	k.mu.Unlock()
	switch {
	case !prev.ok || prev.runnable != cur.runnable:
		data, err := k.ReadFile("/proc/uptime")
		if err != nil {
			return 0, fmt.Errorf("uptime not read: %w", err)
		}
		up, err := ParseUptime(data)
		if err != nil {
			return 0, err
		}
		cur.load = seed(cur.tree, srv.Start, up) + seed(cur.self, self.Start, up)
	default:
		dt := cur.at.Sub(prev.at).Seconds()
		used := sub(cur.self, prev.self)
		if group == prev.group {
			used += sub(cur.tree, prev.tree)
		} else {
			used += cur.tree
		}
		cur.load = prev.load
		if dt > 0 {
			cur.load = Damp(prev.load, used/dt, dt)
		}
	}
	k.mu.Lock()
	k.own = cur
	k.mu.Unlock()
	return cur.load, nil
}

// runnable sums the runnable seconds (on a CPU or waiting for one) of
// the threads of /proc/<proc> (a pid, or "self"). A thread that ended
// between the listing and its reading is left out.
func (k *Hook) runnable(proc string) (float64, error) {
	if k.Threads == nil {
		return 0, errNoThreads
	}
	tids, err := k.Threads(proc)
	if err != nil {
		return 0, err
	}
	var sec float64
	n := 0
	for _, tid := range tids {
		data, err := k.ReadFile("/proc/" + proc + "/task/" + strconv.Itoa(tid) + "/schedstat")
		if err != nil {
			continue
		}
		run, wait, err := ParseSchedstat(data)
		if err != nil {
			return 0, err
		}
		sec += float64(run+wait) / 1e9
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("/proc/%s: no thread's schedstat read", proc)
	}
	return sec, nil
}

var errNoThreads = errors.New("threads not listed")

// seed is what the load average remembers of a process that used sec
// seconds (runnable or CPU) since it started at start (clock ticks since
// boot), uptime seconds after boot: its mean over its life, damped over
// its life as if it had started from nothing. A process younger than a
// minute left only part of its use in the load average.
func seed(sec float64, start uint64, uptime float64) float64 {
	age := uptime - float64(start)/ClockTicks
	if age <= 0 {
		return 0
	}
	return Damp(0, sec/age, age)
}

// sub is a-b, 0 when a counter went back (a process left the tree).
func sub(a, b float64) float64 {
	if a < b {
		return 0
	}
	return a - b
}

// ownNote is the trial's Health.OwnLoad: whose load is counted, or why
// none is. "" when the hook is not asked to count it (no Pids) and when
// the server runs on another machine (SkipGPU): its load is not in this
// host's, and the whole-load rule judges the client's host.
func (k *Hook) ownNote(group int) string {
	switch {
	case k.Pids == nil || k.SkipGPU != "":
		return ""
	case group > 0:
		return OwnCounted
	}
	return OwnAttached
}
