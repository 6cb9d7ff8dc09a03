package sim

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// maxLag is how far behind its schedule the engine may fall before it stops
// catching up. Steps are timed with absolute deadlines (the next step starts
// when the previous one was due to end, not when the sleep returned), so
// timer overshoot (about 1 ms per sleep on a loaded Linux box) and short
// scheduling stalls do not accumulate into TPOT: the steps that follow are
// shortened until the engine is back on schedule, as a GPU that kept working
// while the API process stalled would deliver a burst. After a stall longer
// than maxLag the engine restarts from "now" instead, and counts a slip
// (Stats.Slips): the machine, not the model, set the pace, which a test of
// the model's timing can tell from its own measurement being off.
const maxLag = 100 * time.Millisecond

// engine runs the core on one goroutine in real time. HTTP handlers talk to
// it only through submit and abort, which never block on the engine.
type engine struct {
	core *core
	cfg  func() *Config
	met  *metricsState
	clk  *clock

	mu         sync.Mutex
	inbox      []*seq
	aborts     []*seq
	resetCache bool
	held       bool // the engine pauses before its next step (tests on virtual time: engine.hold)

	wake chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once

	running atomic.Int64
	waiting atomic.Int64
	kvUsage atomic.Uint64 // float64 bits, fraction of KV blocks in use
	slips   atomic.Int64  // schedules dropped after falling maxLag behind
}

func newEngine(c *core, cfg func() *Config, met *metricsState, clk *clock) *engine {
	e := &engine{core: c, cfg: cfg, met: met, clk: clk, wake: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	go e.run()
	return e
}

func (e *engine) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// sleep waits until signal wakes the engine (true: a request, an abort
// or a config change) or stop ends it (false).
func (e *engine) sleep() bool {
	select {
	case <-e.wake:
		return true
	case <-e.quit:
		return false
	}
}

func (e *engine) submit(seqs ...*seq) {
	e.mu.Lock()
	e.inbox = append(e.inbox, seqs...)
	e.mu.Unlock()
	e.waiting.Add(int64(len(seqs)))
	e.signal()
}

func (e *engine) abort(seqs ...*seq) {
	e.mu.Lock()
	for _, s := range seqs {
		if !s.aborted.Swap(true) {
			e.aborts = append(e.aborts, s)
		}
	}
	e.mu.Unlock()
	e.signal()
}

func (e *engine) resetPrefixCache() {
	e.mu.Lock()
	e.resetCache = true
	e.mu.Unlock()
	e.signal()
}

// stop ends the engine goroutine and waits for it.
func (e *engine) stop() {
	e.once.Do(func() { close(e.quit) })
	<-e.done
}

// drain moves submitted and aborted sequences into the core. It returns the
// latest arrival among the new sequences, so a step never starts before a
// request it serves arrived.
func (e *engine) drain() (latest time.Time, held bool) {
	e.mu.Lock()
	if e.held {
		e.mu.Unlock()
		return latest, true
	}
	inbox, aborts, reset := e.inbox, e.aborts, e.resetCache
	e.inbox, e.aborts, e.resetCache = nil, nil, false
	e.mu.Unlock()
	for _, s := range inbox {
		if !s.aborted.Load() {
			e.core.waiting = append(e.core.waiting, s)
			latest = maxTime(latest, s.arrival)
		}
	}
	for _, s := range aborts {
		if !s.finished {
			e.core.abort(s)
			e.met.aborted(s, e.clk.now())
		}
	}
	if reset {
		e.core.cache.reset()
	}
	return latest, false
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (e *engine) run() {
	defer close(e.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var prevEnd time.Time
	for {
		latest, held := e.drain()
		e.publish()
		if held || e.core.idle() {
			prevEnd = time.Time{}
			if !e.sleep() {
				return
			}
			continue
		}
		cfg := e.cfg()
		e.met.mu.Lock()
		b := e.core.schedule(cfg)
		e.met.mu.Unlock()
		if len(b.seqs) == 0 && len(e.core.running) == 0 {
			// The head of the queue cannot fit even in an empty KV cache
			// (max_model_len or kv_cache_tokens shrank at run time): end it
			// like vLLM ends an aborted request, then schedule again.
			e.met.mu.Lock()
			e.core.reject(e.clk.now())
			e.met.mu.Unlock()
			continue
		}
		if len(b.seqs) == 0 {
			// Nothing fits; wait for an abort or a config change.
			prevEnd = time.Time{}
			if !e.sleep() {
				return
			}
			continue
		}
		now := e.clk.now()
		start := maxTime(prevEnd, latest)
		if start.IsZero() || now.Sub(start) > maxLag {
			if !start.IsZero() {
				e.slips.Add(1)
			}
			start = now
		}
		end := start.Add(e.core.cost(cfg, &b, start))
		if e.clk.virtual {
			e.clk.advance(end)
		} else if wait := time.Until(end); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-e.quit:
				timer.Stop()
				return
			}
		}
		// Tokens are stamped with the real time they are handed over, which
		// is what a client can observe; the schedule continues from end. (On
		// virtual time that is end itself.)
		at := e.clk.now()
		e.met.mu.Lock()
		e.core.complete(cfg, &b, at)
		e.met.mu.Unlock()
		prevEnd = end
	}
}

// publish updates the gauges read by /metrics and Stats.
func (e *engine) publish() {
	e.running.Store(int64(len(e.core.running)))
	e.waiting.Store(int64(len(e.core.waiting)))
	total := e.core.cache.capacity
	u := 0.0
	if total > 0 {
		u = float64(e.core.used) / float64(total)
	}
	e.kvUsage.Store(math.Float64bits(u))
}

func (e *engine) kvUsageValue() float64 { return math.Float64frombits(e.kvUsage.Load()) }
