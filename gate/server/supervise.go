package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/gate/ready"
)

// Supervise launches the server described by cfg, waits until it is ready,
// and calls fn with a context that is cancelled the moment the server dies
// or fails its health checks (DefaultWatchInterval, DefaultWatchFailures);
// context.Cause(ctx) then is the *ExitError (with the log tail) or
// *HealthError. The server is stopped when fn returns. The returned error
// is the server's failure when there was one (a run cut short by a dead
// server must report the server, not "context canceled"), else fn's error,
// else Stop's. Before stopping the server it looks at it once more
// (finalLook), so a server that died as fn's last requests failed is this
// run's failure, not hidden by the SIGTERM.
//
// This is the whole of what `perfgate run` and `perfgate gate` need to own
// a candidate server: run the trials inside fn against info.URL, and treat
// an error that errors.As finds an *ExitError or *HealthError in as a run
// failure (exit 3) whose Tail goes into the report.
func Supervise(ctx context.Context, cfg Config, client *http.Client, fn func(ctx context.Context, info Info) error) error {
	p, info, err := Launch(ctx, cfg, client)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancelCause(withGroup(ctx, p.Pid()))
	watchCtx, stopWatch := context.WithCancel(ctx)
	failed := p.Watch(watchCtx, client, DefaultWatchInterval, DefaultWatchFailures)
	watched := make(chan error, 1)
	go func() {
		err := <-failed // nil when the watch is stopped
		if err != nil {
			cancel(err)
		}
		watched <- err
	}()
	fnErr := fn(runCtx, info)
	stopWatch()
	serverErr := <-watched
	if serverErr == nil && ctx.Err() == nil {
		// The server may have died before the watch's next look: a cell
		// can finish its trials (the last requests refused by the dying
		// server) while the process is still exiting, which p.Err cannot
		// see yet. Nothing has asked it to stop, so look once more before
		// Stop's SIGTERM would hide the death (issue 19).
		serverErr = p.finalLook(ctx, client, DefaultWatchInterval, DefaultWatchFailures)
	}
	cancel(nil)
	var he *HealthError
	if errors.As(serverErr, &he) {
		he.Tail = p.Tail(tailLines)
	}
	var stopErr error
	if ctx.Err() != nil {
		// Interrupted: the caller must write its partial results before
		// the CI runner's SIGTERM, so the server gets a short grace.
		stopErr = p.StopWithin(InterruptStopGrace)
	} else {
		stopErr = p.Stop()
	}
	switch {
	case serverErr != nil:
		return serverErr
	case fnErr != nil:
		return fnErr
	case stopErr != nil:
		return stopErr
	}
	return nil
}

// finalLook is the health watch's last look, taken when the run is over
// and before the server is stopped: nil when the server answers its
// liveness probe; its *ExitError when it has exited or exits while the
// probe fails (a server whose port is closed is dying: waiting for the
// exit, up to the watch's own patience of failures x interval, attributes
// the death to the run it happened in, not to the next start); a
// *HealthError when it neither answers nor exits.
func (p *Process) finalLook(ctx context.Context, client *http.Client, interval time.Duration, failures int) error {
	if err := p.Err(); err != nil {
		return err
	}
	info := p.info
	if info.URL == "" {
		info = Info{URL: p.url, Health: true}
	}
	for bad := 1; ; bad++ {
		pctx, cancel := context.WithTimeout(ctx, interval)
		err := ready.Alive(pctx, client, p.apiKey, info)
		cancel()
		if err == nil || ctx.Err() != nil {
			return p.Err() // an interrupt is not the server's failure
		}
		if bad >= failures {
			if err := p.Err(); err != nil {
				return err
			}
			return &HealthError{Failures: bad, Last: err}
		}
		t := time.NewTimer(interval)
		select {
		case <-p.done:
			t.Stop()
			return p.Err()
		case <-ctx.Done():
			t.Stop()
			return p.Err()
		case <-t.C:
		}
	}
}
