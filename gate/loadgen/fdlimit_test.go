package loadgen

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/workload"
)

// fakeLimits is a process limit for tests: soft/hard RLIMIT_NOFILE, what a
// raise does, and the descriptors already open.
type fakeLimits struct {
	soft, hard uint64
	raiseErr   error
	raised     uint64
	opened     int
}

func (f *fakeLimits) nofile() (uint64, uint64, bool) { return f.soft, f.hard, true }
func (f *fakeLimits) open() int                      { return f.opened }
func (f *fakeLimits) raise(soft uint64) error {
	if f.raiseErr != nil {
		return f.raiseErr
	}
	f.raised, f.soft = soft, soft
	return nil
}

func withLimits(t *testing.T, l limits) {
	t.Helper()
	old := fdLimits
	fdLimits = l
	t.Cleanup(func() { fdLimits = old })
}

func TestEnsureFDs(t *testing.T) {
	capped := manifest(2000, 1500, 0, 1) // 1500 in flight at most
	uncapped := manifest(3000, 0, 0, 1)  // rate inf, no cap: all 3000 at once
	uncapped.Rate = math.Inf(1)
	openLoop := manifest(3000, 0, time.Millisecond, 1)
	openLoop.Rate = 1000 // no fixed bound: not checked
	for _, c := range []struct {
		name   string
		l      fakeLimits
		m      func() *workload.Manifest
		raised uint64
		err    string
	}{
		{name: "enough", l: fakeLimits{soft: 4096, hard: 4096, opened: 10}, m: func() *workload.Manifest { return capped }},
		{name: "raise the soft limit", l: fakeLimits{soft: 1024, hard: 65536, opened: 10}, m: func() *workload.Manifest { return capped }, raised: 10 + 1500 + fdReserve},
		{name: "hard limit too low", l: fakeLimits{soft: 1024, hard: 1024, opened: 10}, m: func() *workload.Manifest { return capped },
			err: "concurrency 1500 needs about 1542 open files, but this process may open 1024 (ulimit -n; hard limit 1024)"},
		{name: "raise refused", l: fakeLimits{soft: 1024, hard: 65536, opened: 10, raiseErr: errors.New("EPERM")}, m: func() *workload.Manifest { return capped },
			err: "raise the limit (ulimit -n 1542) or lower load.concurrency"},
		{name: "uncapped burst counts every request", l: fakeLimits{soft: 2048, hard: 2048, opened: 10}, m: func() *workload.Manifest { return uncapped },
			err: "concurrency 3000 needs about 3042"},
		{name: "open loop is not checked", l: fakeLimits{soft: 64, hard: 64, opened: 10}, m: func() *workload.Manifest { return openLoop }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := c.l
			withLimits(t, &l)
			err := ensureFDs(c.m())
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("err = %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("err = %v, want %q", err, c.err)
			}
			if l.raised != c.raised {
				t.Errorf("raised the soft limit to %d, want %d", l.raised, c.raised)
			}
		})
	}
}

// TestRunChecksFDLimitBeforeSending: a limit too low for the concurrency
// stops the run before any request (issue 14, defect 16: the client's own
// EMFILE errors used to be recorded as the server's connect_error).
func TestRunChecksFDLimitBeforeSending(t *testing.T) {
	withLimits(t, &fakeLimits{soft: 256, hard: 256, opened: 10})
	f := &fake{}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, nil)
	res, err := r.Run(context.Background(), manifest(500, 400, 0, 2), 1)
	if err == nil || !strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "ulimit -n") {
		t.Fatalf("err = %v", err)
	}
	if len(res.Trials) != 0 || res.Complete {
		t.Errorf("trials %d, complete %v", len(res.Trials), res.Complete)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.arrivals) != 0 {
		t.Errorf("%d requests reached the server", len(f.arrivals))
	}
}
