// Package background runs the one goroutine a trial hook keeps sampling in
// between its BeforeTrial and AfterTrial: started detached from the
// trial's context, so a cancelled trial still ends its sampler through
// Halt, and halted with a wait, so nothing samples into the next trial.
package background

import (
	"context"
	"sync"
)

// Loop holds at most one running goroutine. The zero Loop is ready; its
// methods are safe for concurrent use.
type Loop struct {
	mu   sync.Mutex
	stop context.CancelFunc
	done chan struct{}
}

// Start runs run in a goroutine on a context that keeps ctx's values but
// not its cancellation or deadline: only Halt ends it. A Loop runs one
// goroutine at a time, so the caller halts the previous one first.
func (l *Loop) Start(ctx context.Context, run func(context.Context)) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	l.mu.Lock()
	l.stop, l.done = cancel, done
	l.mu.Unlock()
	go func() {
		defer close(done)
		run(sctx)
	}()
}

// Halt cancels the running goroutine's context and waits for it to
// return. Without one running it does nothing.
func (l *Loop) Halt() {
	l.mu.Lock()
	stop, done := l.stop, l.done
	l.stop, l.done = nil, nil
	l.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}
