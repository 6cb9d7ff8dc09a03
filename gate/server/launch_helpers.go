package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Launch starts the server described by cfg and waits until it is ready,
// stopping it again if it never gets there. It is what `perfgate run` and
// `perfgate gate` do when server.command is set: on success the caller
// owns the Process and must Stop it.
func Launch(ctx context.Context, cfg Config, client *http.Client) (*Process, Info, error) {
	if err := checkPortFree(ctx, cfg.URL, portGrace); err != nil { // port.go
		return nil, Info{}, &LaunchError{Err: err}
	}
	p, err := Start(cfg)
	if err != nil {
		return nil, Info{}, err
	}
	timeout := cfg.ReadyTimeout
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	info, err := p.Ready(ctx, client, timeout)
	if err != nil {
		stopErr := p.Stop()
		_ = stopErr // the readiness failure is the news; a log-file error adds nothing
		return nil, Info{}, &LaunchError{Err: err, Tail: p.Tail(tailLines)}
	}
	return p, info, nil
}

// LaunchError says a launched server never became ready: it exited, it
// printed no address, it refused the credentials or it did not answer in
// time (Err says which). Tail is the end of its log.
type LaunchError struct {
	Err  error
	Tail string
}

func (e *LaunchError) Error() string { return e.Err.Error() }
func (e *LaunchError) Unwrap() error { return e.Err }

// tailLines is how much of the server's log a failure report shows.
const tailLines = 40

// ParseEnv turns server.env entries ("NAME=value") into Config.Env. An
// entry without "=" or with an empty name is an error naming its position.
func ParseEnv(entries []string) (map[string]string, error) {
	env := make(map[string]string, len(entries))
	for i, e := range entries {
		name, value, ok := strings.Cut(e, "=")
		if !ok || name == "" {
			// The entry is not shown: a malformed one may be a bare secret.
			return nil, fmt.Errorf("server.env entry %d: want NAME=value", i+1)
		}
		env[name] = value
	}
	return env, nil
}

// DefaultWatchInterval and DefaultWatchFailures are what a run uses for
// Watch: a dead engine answers /health 503 at once, a busy one may miss a
// probe under load, so three misses in a row two seconds apart.
const (
	DefaultWatchInterval = 2 * time.Second
	DefaultWatchFailures = 3
)
