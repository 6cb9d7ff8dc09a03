package health

import (
	"fmt"
	"time"
)

// ownState is the hook's running own load (ownload.go), kept across
// trials: the load average remembers the last minute whatever the trial,
// so the own load it is compared with must too.
type ownState struct {
	ok    bool
	group int       // the server's process group at the last reading
	tree  uint64    // its tree's CPU ticks then
	self  uint64    // perfgate's CPU ticks then
	at    time.Time // when
	load  float64   // the damped own load
}

func (k *Hook) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// ownSample reads the CPU time of the server's process tree (process
// group group) and of perfgate's own process, and returns the own load
// damped up to now. The first reading of a run has no interval before
// it: it is seeded with what the load average remembers of the server's
// and perfgate's lives so far (seed): the server's start-up and the
// warm-up. A new group (the server restarted) counts its
// whole tree's time into the interval since the last reading, during which
// it started. perfgate's own time is its process's (utime + stime), not
// its children's: the server is its child, and would count twice when it
// is reaped.
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
	tree, _ := TreeCPU(stats, group)
	data, err := k.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, fmt.Errorf("perfgate's own CPU time not read: %w", err)
	}
	self, err := ParseProcStat(data)
	if err != nil {
		return 0, err
	}
	now := k.now()
	k.mu.Lock()
	prev := k.own
	k.mu.Unlock()
	var load float64
	switch {
	case !prev.ok:
		data, err := k.ReadFile("/proc/uptime")
		if err != nil {
			return 0, fmt.Errorf("uptime not read: %w", err)
		}
		up, err := ParseUptime(data)
		if err != nil {
			return 0, err
		}
		load = seed(tree, srv.Start, up) + seed(self.CPU, self.Start, up)
	default:
		dt := now.Sub(prev.at).Seconds()
		used := sub(self.CPU, prev.self)
		if group == prev.group {
			used += sub(tree, prev.tree)
		} else {
			used += tree
		}
		if dt > 0 {
			load = Damp(prev.load, float64(used)/ClockTicks/dt, dt)
		} else {
			load = prev.load
		}
	}
	k.mu.Lock()
	k.own = ownState{ok: true, group: group, tree: tree, self: self.CPU, at: now, load: load}
	k.mu.Unlock()
	return load, nil
}

// seed is what the load average remembers of a process that used ticks
// of CPU time since it started at start (clock ticks since boot), uptime
// seconds after boot: its mean use over its life, damped over its life as
// if it had started from nothing. A process younger than a minute left
// only part of its use in the load average.
func seed(ticks, start uint64, uptime float64) float64 {
	age := uptime - float64(start)/ClockTicks
	if age <= 0 {
		return 0
	}
	return Damp(0, float64(ticks)/ClockTicks/age, age)
}

// sub is a-b, 0 when a counter went back (a process left the tree).
func sub(a, b uint64) uint64 {
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
