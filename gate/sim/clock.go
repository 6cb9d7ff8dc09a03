package sim

import (
	"sync"
	"time"
)

// virtualEpoch is where a virtual clock starts: a fixed instant, so two runs
// on virtual time stamp the same schedule with the same times.
var virtualEpoch = time.Unix(1_700_000_000, 0)

// clock is where the engine and the request handlers read the server-side
// time they stamp on a request (arrival, scheduling, each token, finish).
// The real clock is time.Now and the engine sleeps through each step. The
// virtual clock (Options.VirtualTime) stands still while nothing runs and
// jumps to a step's end as soon as the step is computed, so every timestamp
// is exactly what the cost model says, however slowly the machine ran it.
type clock struct {
	virtual bool
	mu      sync.Mutex
	t       time.Time // virtual time; unused by the real clock
}

func newClock(virtual bool) *clock { return &clock{virtual: virtual, t: virtualEpoch} }

func (c *clock) now() time.Time {
	if !c.virtual {
		return time.Now()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// advance moves a virtual clock forward to t (never back).
func (c *clock) advance(t time.Time) {
	c.mu.Lock()
	if t.After(c.t) {
		c.t = t
	}
	c.mu.Unlock()
}
