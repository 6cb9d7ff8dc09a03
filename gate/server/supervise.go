package server

import (
	"context"
	"errors"
	"net/http"
)

// Supervise launches the server described by cfg, waits until it is ready,
// and calls fn with a context that is cancelled the moment the server dies
// or fails its health checks (DefaultWatchInterval, DefaultWatchFailures);
// context.Cause(ctx) then is the *ExitError (with the log tail) or
// *HealthError. The server is stopped when fn returns. The returned error
// is the server's failure when there was one (a run cut short by a dead
// server must report the server, not "context canceled"), else fn's error,
// else Stop's.
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
	if serverErr == nil {
		// The server may have died before the watch's next look: on a
		// busy machine a cell can finish its trials (the last requests
		// refused by the dying server) first. Nothing has asked it to
		// stop yet, so an exit now is a death all the same.
		serverErr = p.Err()
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
