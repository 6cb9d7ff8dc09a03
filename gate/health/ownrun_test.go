package health

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// runProc serves /proc for a server (pid 4000, two threads) whose threads
// are runnable 8 CPUs' worth on the 4-CPU host (fakeProc's /proc/stat):
// 4 on a CPU and 4 waiting for one, as a CPU engine with twice the cores
// in threads is. perfgate (self, one thread) runs 0.2 CPUs. The load
// average stands at 9: 0.8 of it is a neighbour's.
type runProc struct {
	fakeProc
	mu  sync.Mutex
	now time.Time
	sec float64 // seconds since the server started (at 10 s after boot)
}

func (p *runProc) read(name string) ([]byte, error) {
	p.mu.Lock()
	sec := p.sec
	p.mu.Unlock()
	stat := func(pid, ppid, pgrp int, ticks float64, start int) []byte {
		return []byte(fmt.Sprintf("%d (x) S %d %d %d 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 %d 1 1\n", pid, ppid, pgrp, pgrp, uint64(ticks), start))
	}
	ns := func(cpus float64) uint64 { return uint64(cpus * sec * 1e9) }
	switch name {
	case "/proc/loadavg":
		return []byte("9.00 9.00 9.00 9/300 1234\n"), nil
	case "/proc/uptime":
		return []byte(fmt.Sprintf("%.2f 0\n", 10+sec)), nil
	case "/proc/self/stat":
		return stat(3000, 1, 3000, 0.2*sec*ClockTicks, 1000), nil
	case "/proc/4000/stat":
		return stat(4000, 3000, 4000, 4*sec*ClockTicks, 1000), nil
	case "/proc/4000/task/4000/schedstat", "/proc/4000/task/4001/schedstat":
		return []byte(fmt.Sprintf("%d %d 100\n", ns(2), ns(2))), nil
	case "/proc/self/task/3000/schedstat":
		return []byte(fmt.Sprintf("%d 0 100\n", ns(0.2))), nil
	}
	return p.fakeProc.read(name)
}

// TestHookOwnLoadRunnable: with the threads listed, the own load is the
// time the server's and perfgate's threads were runnable (schedstat: on
// a CPU or waiting for one), which is what they add to the load average,
// so a server that keeps twice the cores' worth of threads runnable by
// itself is no busy host. Its CPU time alone (no thread list) leaves the
// waiting to the neighbours: 9 - 4.2 = 4.8 above the 4 CPUs reads busy.
func TestHookOwnLoadRunnable(t *testing.T) {
	for _, tt := range []struct {
		name     string
		threads  bool
		wantOwn  float64
		wantBusy bool
	}{
		{"runnable time", true, 8.2, false},
		{"CPU time", false, 4.2, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &runProc{now: time.Unix(1e9, 0), sec: 3600} // an hour at these rates: the seed is steady
			k := &Hook{Run: (&fakeRunner{noSMI: true}).run, ReadFile: p.read, Interval: time.Hour,
				Now:         func() time.Time { p.mu.Lock(); defer p.mu.Unlock(); return p.now },
				ServerGroup: func(context.Context) int { return 4000 }, Pids: func() ([]int, error) { return []int{3000, 4000}, nil }}
			if tt.threads {
				k.Threads = func(proc string) ([]int, error) {
					if proc == "self" {
						return []int{3000}, nil
					}
					return []int{4000, 4001}, nil
				}
			}
			tr := runTrial(t, k, 0, func() {
				p.mu.Lock()
				p.now, p.sec = p.now.Add(30*time.Second), p.sec+30
				p.mu.Unlock()
			})
			h := tr.Health
			for i, s := range h.Samples {
				if math.Abs(s.OwnLoad-tt.wantOwn) > 0.01 {
					t.Errorf("sample %d: own load %.3f, want %.1f", i, s.OwnLoad, tt.wantOwn)
				}
			}
			busy := strings.Contains(strings.Join(tr.Warnings, "\n"), "host busy")
			if busy != tt.wantBusy || len(h.Notes) != 0 {
				t.Errorf("busy %v, want %v: warnings %q, notes %q", busy, tt.wantBusy, tr.Warnings, h.Notes)
			}
		})
	}
}

// TestParseSchedstat: a thread's run and wait nanoseconds; anything else
// is an error.
func TestParseSchedstat(t *testing.T) {
	run, wait, err := ParseSchedstat([]byte("123456789 987654 42\n"))
	if err != nil || run != 123456789 || wait != 987654 {
		t.Errorf("ParseSchedstat = %d, %d, %v", run, wait, err)
	}
	for _, bad := range []string{"", "1", "x 2 3", "1 -2 3", "99999999999999999999 1 1"} {
		if _, _, err := ParseSchedstat([]byte(bad)); err == nil {
			t.Errorf("ParseSchedstat(%q): no error", bad)
		}
	}
}
