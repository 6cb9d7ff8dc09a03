package loadgen

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/gate/ready"
)

// readyOnce makes a Runner spend its ready timeout once: after a
// readiness wait ran out (*ready.NotReadyError) against a server that was
// never ready for this Runner, every later Prepare fails at once with
// that answer instead of waiting the whole timeout again. perfgate gate
// prepares a cell twice (its preflight, then the run), so a --url that
// never answered cost two timeouts: a 3 s timeout exited after 6.1 s, a
// 10 minute one after 20 (#21). A server that was ready once keeps the
// full wait: it may be restarting between cells.
type readyOnce struct {
	ever  bool  // some wait succeeded
	spent error // the wait that ran out while ever was false
}

// readySpent is the error a Prepare returns without waiting, nil when it
// should wait.
func (r *Runner) readySpent() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ready.ever || r.ready.spent == nil {
		return nil
	}
	return fmt.Errorf("%w (the ready timeout is spent once per run: not waited for again)", r.ready.spent)
}

// readyAnswer records how a readiness wait ended.
func (r *Runner) readyAnswer(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var nr *ready.NotReadyError
	switch {
	case err == nil:
		r.ready.ever = true
	case errors.As(err, &nr) && !r.ready.ever && r.ready.spent == nil:
		r.ready.spent = err
	}
}
