package health

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// own is a host sample with the server's and perfgate's own load.
func own(load, ownLoad float64) result.HealthSample {
	s := host(load, 40000)
	s.OwnLoad = ownLoad
	return s
}

// TestBusyHostOwnLoad: the busy-host rule on a 2-CPU runner judges the
// load less the server's and perfgate's own when the hook counted it, the
// whole load otherwise, and each label says which.
func TestBusyHostOwnLoad(t *testing.T) {
	tests := []struct {
		name    string
		ownNote string
		samples []result.HealthSample
		want    []string // Unhealthy's labels
		warn    string   // a fragment of Judge's warning, "" for none
	}{
		// The simulator alone keeps 2.6 CPUs busy: its own load, not a
		// neighbour's.
		{"own load only", OwnCounted, []result.HealthSample{own(3.0, 2.6), own(2.8, 2.5)}, nil, ""},
		// Two busy loops beside the same server: 2 runnable tasks more,
		// and the server gets less CPU, so less own load to take off.
		{"a neighbour beside the server", OwnCounted, []result.HealthSample{own(3.0, 2.6), own(4.4, 1.3)},
			[]string{"others' load above the 2 CPUs"}, "the load average less the server's and perfgate's own load exceeded the 2 CPUs during the trial (health.summary.max_other_load1)"},
		// A sample whose own load was not read counts whole: the rule
		// errs towards busy.
		{"own load not read in one sample", OwnCounted, []result.HealthSample{own(1.0, 0.9), host(2.5, 40000)},
			[]string{"others' load above the 2 CPUs"}, "max_other_load1"},
		// A server given by URL: its load is a neighbour's, and the label
		// says so.
		{"attached server", OwnAttached, []result.HealthSample{host(3.0, 40000)},
			[]string{"load above the 2 CPUs, the attached server's own included"}, "the server's own load included since it was given by URL"},
		// A record from before the own load was read: the whole load.
		{"old record", "", []result.HealthSample{host(2.5, 40000)}, []string{"load above the 2 CPUs"}, "host busy: the load average exceeded the 2 CPUs during the trial (health.summary.max_load1)"},
		{"old record, idle", "", []result.HealthSample{host(1.5, 40000)}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &result.Health{CPUs: 2, Samples: tt.samples, OwnLoad: tt.ownNote}
			Summarize(h)
			if got := Unhealthy(h, Limits{}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Unhealthy = %q, want %q", got, tt.want)
			}
			_, warnings := Judge(h, Limits{})
			got := strings.Join(warnings, "\n")
			if (tt.warn == "") != (got == "") || !strings.Contains(got, tt.warn) {
				t.Errorf("Judge warnings %q, want %q", got, tt.warn)
			}
		})
	}
}

// TestDamp: the own load follows the kernel's update of the load
// average: unchanged over no time, e^-1 of the way from the old value
// after one time constant, and the steady use after long enough.
func TestDamp(t *testing.T) {
	tests := []struct {
		prev, cores, dt, want float64
	}{
		{1.5, 3, 0, 1.5},
		{1.5, 3, math.NaN(), 1.5},
		{0, 2, LoadTau, 2 * (1 - math.Exp(-1))},
		{2, 0, LoadTau, 2 * math.Exp(-1)},
		{0.3, 1.7, 3600, 1.7},
	}
	for _, tt := range tests {
		if got := Damp(tt.prev, tt.cores, tt.dt); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Damp(%v, %v, %v) = %v, want %v", tt.prev, tt.cores, tt.dt, got, tt.want)
		}
	}
	// Five-second steps compound to one step of their sum.
	v := 0.5
	for i := 0; i < 12; i++ {
		v = Damp(v, 2, 5)
	}
	if want := Damp(0.5, 2, 60); math.Abs(v-want) > 1e-9 {
		t.Errorf("12 steps of 5 s: %v, one of 60 s: %v", v, want)
	}
}

// TestTreeCPU: the server's tree is its process group and every
// descendant (a worker that called setsid included), each with the time
// of the children it waited for; perfgate and a neighbour are not in it.
func TestTreeCPU(t *testing.T) {
	stats := map[int]ProcStat{
		4000: {PPID: 3000, PGRP: 4000, CPU: 100, Children: 5}, // the server
		4100: {PPID: 4000, PGRP: 4000, CPU: 200},              // a worker in its group
		4200: {PPID: 4100, PGRP: 4200, CPU: 50},               // a grandchild that called setsid
		3000: {PPID: 1, PGRP: 3000, CPU: 70},                  // perfgate, the server's parent
		5000: {PPID: 1, PGRP: 5000, CPU: 900},                 // a neighbour
		5100: {PPID: 5000, PGRP: 4000, CPU: 1},                // in the server's group by chance? still its group
	}
	ticks, n := TreeCPU(stats, 4000)
	if ticks != 100+5+200+50+1 || n != 4 {
		t.Errorf("TreeCPU = %d ticks over %d processes, want 356 over 4", ticks, n)
	}
	if ticks, n := TreeCPU(stats, 9999); ticks != 0 || n != 0 {
		t.Errorf("a gone server: %d ticks over %d processes", ticks, n)
	}
}

// ownProc serves /proc for the own-load hook test: the server (4000) and
// its worker (4100) use CPU at the rates the test sets, perfgate 0.2 CPUs;
// ticks advance with the fake clock. The host has 4 CPUs (fakeProc's
// /proc/stat).
type ownProc struct {
	fakeProc
	mu          sync.Mutex
	now         time.Time
	srv, worker float64 // ticks so far
	self        float64
	load        float64
}

func (p *ownProc) advance(d time.Duration, serverCPUs float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now = p.now.Add(d)
	s := d.Seconds() * ClockTicks
	p.srv += s * serverCPUs / 2
	p.worker += s * serverCPUs / 2
	p.self += s * 0.2
}

func (p *ownProc) read(name string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	stat := func(pid, ppid, pgrp int, ticks float64, start int) []byte {
		return []byte(fmt.Sprintf("%d (x) S %d %d %d 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 %d 1 1\n", pid, ppid, pgrp, pgrp, uint64(ticks), start))
	}
	switch name {
	case "/proc/loadavg":
		return []byte(fmt.Sprintf("%.2f 1.00 0.50 2/300 1234\n", p.load)), nil
	case "/proc/uptime":
		// The server started at tick 1000 (10 s after boot), 110 s ago.
		return []byte("120.00 200.00\n"), nil
	case "/proc/self/stat":
		return stat(3000, 1, 3000, p.self, 500), nil
	case "/proc/4000/stat":
		return stat(4000, 3000, 4000, p.srv, 1000), nil
	case "/proc/4100/stat":
		return stat(4100, 4000, 4000, p.worker, 1100), nil
	case "/proc/5000/stat":
		return stat(5000, 1, 5000, 1e6, 200), nil
	}
	p.mu.Unlock()
	defer p.mu.Lock()
	return p.fakeProc.read(name)
}

// TestHookOwnLoad: with a launched server, every sample carries the own
// load (seeded with the server's life at the run's first reading, then
// damped as the load average is), the trial says whose load it counted,
// and a load the server makes by itself is no busy host, while the same
// load with the server idle is. A server given by URL keeps the whole
// load and says why.
func TestHookOwnLoad(t *testing.T) {
	p := &ownProc{now: time.Unix(1e9, 0)}
	p.advance(110*time.Second, 2.5) // the server's life so far: 2.5 CPUs
	p.self = 0                      // perfgate's time before counts for nothing here
	run := &fakeRunner{noSMI: true}
	k := &Hook{Run: run.run, ReadFile: p.read, Interval: time.Hour, Now: func() time.Time { p.mu.Lock(); defer p.mu.Unlock(); return p.now },
		ServerGroup: func(context.Context) int { return 4000 }, Pids: func() ([]int, error) { return []int{3000, 4000, 4100, 5000}, nil }}
	p.load = 5 // on 4 CPUs (fakeProc's /proc/stat)
	tr := runTrial(t, k, 0, func() { p.advance(60*time.Second, 2.5) })
	h := tr.Health
	if h.OwnLoad != OwnCounted || len(h.Samples) != 2 {
		t.Fatalf("own load %q, %d samples", h.OwnLoad, len(h.Samples))
	}
	// Seed: 275 s of CPU over the server's 110 s, as the load average
	// remembers it; then a minute at 2.7 (the server's 2.5 and
	// perfgate's 0.2).
	seed := Damp(0, 2.5, 110)
	if got := h.Samples[0].OwnLoad; math.Abs(got-seed) > 0.01 {
		t.Errorf("first own load %v, want %v (the server's life)", got, seed)
	}
	if got, want := h.Samples[1].OwnLoad, Damp(seed, 2.7, 60); math.Abs(got-want) > 0.01 {
		t.Errorf("second own load %v, want %v", got, want)
	}
	if !tr.Valid || len(tr.Warnings) != 1 || strings.Contains(strings.Join(tr.Warnings, ""), "host busy") {
		t.Errorf("the server's own load read as busy: %q", tr.Warnings)
	}
	// The server idles for two minutes while something else keeps the
	// load at 5: a neighbour.
	tr = runTrial(t, k, 1, func() { p.advance(120*time.Second, 0) })
	if w := strings.Join(tr.Warnings, "\n"); !strings.Contains(w, "host busy: the load average less the server's and perfgate's own") {
		t.Errorf("a neighbour's load not read as busy: %q (own %v)", w, tr.Health.Samples[1].OwnLoad)
	}
	// Attached by URL: no own load, the note says why.
	k2 := &Hook{Run: run.run, ReadFile: p.read, Interval: time.Hour, ServerGroup: func(context.Context) int { return 0 }, Pids: k.Pids}
	tr = runTrial(t, k2, 0, nil)
	if tr.Health.OwnLoad != OwnAttached || tr.Health.Samples[0].OwnLoad != 0 || !strings.Contains(strings.Join(tr.Warnings, ""), "host busy") {
		t.Errorf("attached: own load %q (%v), warnings %q", tr.Health.OwnLoad, tr.Health.Samples[0].OwnLoad, tr.Warnings)
	}
	// A server on another machine: its load is not in this host's, so
	// there is nothing to take off and nothing to say.
	k4 := &Hook{Run: run.run, ReadFile: p.read, Interval: time.Hour, ServerGroup: func(context.Context) int { return 0 }, Pids: k.Pids,
		SkipGPU: "the server is not on this machine"}
	if tr = runTrial(t, k4, 0, nil); tr.Health.OwnLoad != "" {
		t.Errorf("remote server: own load %q", tr.Health.OwnLoad)
	}
	// The server gone from /proc: a note, and the whole load counts.
	k3 := &Hook{Run: run.run, ReadFile: p.read, Interval: time.Hour, ServerGroup: func(context.Context) int { return 4000 },
		Pids: func() ([]int, error) { return nil, os.ErrPermission }}
	tr = runTrial(t, k3, 0, nil)
	if n := strings.Join(tr.Health.Notes, "\n"); !strings.Contains(n, "own load not read, the whole load counted: processes not listed") ||
		!strings.Contains(strings.Join(tr.Warnings, ""), "host busy") {
		t.Errorf("unlisted processes: notes %q, warnings %q", n, tr.Warnings)
	}
}
