package session

import (
	"context"
	"errors"
	"sync"

	"github.com/perfgate/perfgate/gate/result"
)

// Restart stops the launched server of the current start, starts it
// again and waits until it is ready: the next start's context (ended the
// moment that server dies) and session. perfgate gate and run spread a
// first look over trials.restarts starts with it, so the verdict sees as
// many candidate sessions and the between-session noise of the candidate
// shrinks as 1/starts. A failure of the stopped start or of the new one
// comes back as the error, as Run returns it.
type Restart func() (context.Context, *Session, error)

// ErrAttached is the error of restarting a server perfgate did not launch.
var ErrAttached = errors.New("trials.restarts needs a server perfgate launches (server.command or --server-cmd): an attached server (--url) cannot be restarted; its trials were measured in one session")

// RunStarts is Run for a caller that may restart a launched server: fn
// gets the first start's context and session and a Restart that ends the
// current start (the server stopped with every process it spawned) and
// opens the next. Without o.Command it is Run, and Restart returns
// ErrAttached. The error is the failure of any start, else fn's.
func RunStarts(ctx context.Context, o Options, fn func(ctx context.Context, s *Session, restart Restart) error) error {
	if len(o.Command) == 0 {
		return Run(ctx, o, func(ctx context.Context, s *Session) error {
			return fn(ctx, s, func() (context.Context, *Session, error) { return nil, nil, ErrAttached })
		})
	}
	var carried []*result.Result // results a later start continues
	var failed error             // a later start that never became ready
	cur, err := startOne(ctx, o, nil)
	if err != nil {
		return err
	}
	restart := func() (context.Context, *Session, error) {
		carried = cur.s.results()
		if err := cur.end(); err != nil {
			return nil, nil, err
		}
		next, err := startOne(ctx, o, carried)
		if err != nil {
			failed = err
			return nil, nil, err
		}
		cur = next
		return cur.ctx, cur.s, nil
	}
	ferr := fn(cur.ctx, cur.s, restart)
	if err := cur.end(); err != nil {
		return err
	}
	if failed != nil {
		return failed
	}
	return ferr
}

// oneStart is a start whose Run is held open in its own goroutine until
// end releases it.
type oneStart struct {
	ctx     context.Context
	s       *Session
	release chan struct{}
	done    chan error
	once    sync.Once
	err     error
}

// startOne launches the server and waits until it is ready; carried are
// the earlier starts' results, which the new session tracks (Track) so
// that a failure of this start marks the one it cuts short.
func startOne(ctx context.Context, o Options, carried []*result.Result) (*oneStart, error) {
	st := &oneStart{release: make(chan struct{}), done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		st.done <- Run(ctx, o, func(sctx context.Context, s *Session) error {
			for _, r := range carried {
				s.Track(r)
			}
			st.ctx, st.s = sctx, s
			close(ready)
			<-st.release
			return nil
		})
	}()
	select {
	case <-ready:
		return st, nil
	case err := <-st.done:
		if err == nil {
			err = errors.New("the server stopped before it was ready")
		}
		return nil, err
	}
}

// end stops the start's server and returns its failure, if any.
func (st *oneStart) end() error {
	st.once.Do(func() {
		close(st.release)
		st.err = <-st.done
	})
	return st.err
}

// results are the session's results, in order.
func (s *Session) results() []*result.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*result.Result(nil), s.made...)
}
