package loadgen

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/workload"
)

// fdReserve is what the process keeps open besides the trial's connections
// (standard streams, result and log files, the resolver, a launched
// server's pipes), added to the connections when the count of open
// descriptors is unknown, and as slack when it is known.
const fdReserve = 32

// limits reads and raises the process's open-file limit. The real one is
// in fdlimit_rlimit.go; tests swap fdLimits for a fake.
type limits interface {
	// nofile returns the soft and hard RLIMIT_NOFILE; ok is false where
	// the platform has none.
	nofile() (soft, hard uint64, ok bool)
	// raise sets the soft limit.
	raise(soft uint64) error
	// open counts the descriptors open now (-1: unknown).
	open() int
}

var fdLimits limits = osLimits{}

// connsNeeded is how many connections m can hold open at once: its
// concurrency cap, or every request when uncapped and sent at once. An
// uncapped open-loop workload has no fixed bound (it depends on the
// server's speed); it gets 0 and is not checked.
func connsNeeded(m *workload.Manifest) int {
	n := len(m.Requests)
	switch {
	case m.Concurrency > 0:
		return min(m.Concurrency, n)
	case m.Unlimited():
		return n
	}
	return 0
}

// ensureFDs checks, before a trial, that the process may open a connection
// for every request m can have in flight, raising the soft RLIMIT_NOFILE
// towards the hard limit when that is enough. Without it, the client's own
// EMFILE errors would read as the server refusing connections.
func ensureFDs(m *workload.Manifest) error {
	conns := connsNeeded(m)
	if conns == 0 {
		return nil
	}
	soft, hard, ok := fdLimits.nofile()
	if !ok {
		return nil
	}
	open := fdLimits.open()
	if open < 0 {
		open = fdReserve
	}
	need := uint64(open + conns + fdReserve)
	if soft >= need {
		return nil
	}
	if hard >= need {
		if err := fdLimits.raise(need); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s: concurrency %d needs about %d open files, but this process may open %d (ulimit -n; hard limit %d): raise the limit (ulimit -n %d) or lower load.concurrency",
		m.Cell, conns, need, soft, hard, need)
}
