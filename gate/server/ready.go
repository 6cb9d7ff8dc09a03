package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/ready"
)

// Info is what a ready server says about itself (see package ready, whose
// protocol a launched server is held to like any other).
type Info = ready.Info

// NotReadyError says the server did not become ready in time; an
// *AuthError that the probe's credentials were refused. Both come from the
// one readiness protocol in package ready.
type (
	NotReadyError = ready.NotReadyError
	AuthError     = ready.AuthError
)

// NoAddressError says the launched server announced no address on its
// output within the ready timeout, and no server.url was given: there was
// nothing to probe.
type NoAddressError struct {
	Waited time.Duration
}

func (e *NoAddressError) Error() string {
	return fmt.Sprintf("the server printed no address within %s and no server.url (--url) was given, so no address was probed: "+
		"perfgate looks for the first http://host:port on the server's output (e.g. Uvicorn's \"Uvicorn running on http://0.0.0.0:8000\"); "+
		"set server.url (--url) to the address it listens on", roundWait(e.Waited))
}

// roundWait rounds a wait for a message: whole seconds, or milliseconds
// under a second.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// Ready waits until the launched server is ready: it learns the URL
// (configured, or announced in the output), then runs the readiness
// protocol of package ready against it. It fails fast with an *ExitError
// when the server exits meanwhile, with a *NoAddressError when no address
// was known by timeout (DefaultReadyTimeout when zero), and with a
// *NotReadyError when the address never became ready. Config.Hints gets a
// line every half minute saying what is awaited.
func (p *Process) Ready(ctx context.Context, client *http.Client, timeout time.Duration) (Info, error) {
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	start := time.Now()
	// The announcement wait has its own deadline; ready.Wait gets the
	// caller's ctx and the time left, so it can tell a timeout (not
	// ready) from the caller giving up (interrupted).
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if p.url == "" {
		hint := time.NewTicker(ready.DefaultHintEvery)
		defer hint.Stop()
	announce:
		for {
			select {
			case u := <-p.log.addr:
				p.url = u
				break announce
			case <-hint.C:
				if p.hints != nil {
					fmt.Fprintf(p.hints, "perfgate: waiting for the server to print its address (%s of %s); no server.url (--url) is set, so nothing is probed until it does\n",
						time.Since(start).Round(time.Second), timeout)
				}
			case <-p.done:
				return Info{}, p.Err()
			case <-actx.Done():
				if ctx.Err() == nil {
					return Info{}, &NoAddressError{Waited: time.Since(start)}
				}
				return Info{}, fmt.Errorf("%w to print its address: %w", ready.ErrInterrupted, ctx.Err())
			}
		}
		if p.hints != nil {
			fmt.Fprintf(p.hints, "perfgate: the server announced %s; probing it\n", p.url)
		}
	}
	left := timeout - time.Since(start)
	opts := ready.Options{
		URL: p.url, Client: client, APIKey: p.apiKey, Scrubber: p.log.scrub, Timeout: max(left, time.Millisecond),
		Interval: pollInterval, Died: p.done, Hints: p.hints,
	}
	if prof, err := engine.Get(p.engine); err == nil {
		opts.HealthPath, opts.NoHealth, opts.NoModelsHint = prof.HealthPath, prof.HealthPath == "", prof.NoModelsHint
	}
	info, err := ready.Wait(ctx, opts)
	if err != nil {
		if p.Err() != nil {
			return Info{}, p.Err()
		}
		var nr *NotReadyError
		if errors.As(err, &nr) {
			nr.Waited = time.Since(start)
		}
		return Info{}, err
	}
	p.info = info
	return info, nil
}

// launchEngine is the profile a launched server's readiness follows: the
// configured one, else the one its command names, else none ("": the
// default protocol, where a 404 on /health falls back to /v1/models).
func launchEngine(cfg Config) engine.Name {
	if cfg.Engine != "" && cfg.Engine != engine.Auto {
		return cfg.Engine
	}
	if n, ok := engine.FromArgv(cfg.Command); ok {
		return n
	}
	return ""
}

// pollInterval is how often readiness is probed: short against the
// simulator, negligible against a model that loads for minutes.
const pollInterval = 100 * time.Millisecond

// HealthError says the server's liveness probe (GET /health, or
// /v1/models for a server without /health) failed Failures times in a row
// during a run.
type HealthError struct {
	Failures int
	Last     error
	// Tail is the end of the log of a server perfgate launched.
	Tail string
}

func (e *HealthError) Error() string {
	return fmt.Sprintf("server health check failed %d times in a row: %v", e.Failures, e.Last)
}

func (e *HealthError) Unwrap() error { return e.Last }

// Watch reports the first failure of the server during a run: its exit (an
// *ExitError) or its liveness probe failing `failures` times in a row,
// polled every interval (a *HealthError). The liveness probe is the one
// Ready found (ready.Info.LivenessPath): a server without /health is
// watched through /v1/models. The channel receives at most one error and
// is closed when ctx ends. A run selects on it to fail fast (exit 3)
// instead of timing out request by request.
func (p *Process) Watch(ctx context.Context, client *http.Client, interval time.Duration, failures int) <-chan error {
	info := p.info
	if info.URL == "" {
		info = Info{URL: p.url, Health: true}
	}
	return watch(ctx, client, p.apiKey, info, interval, failures, p.done, p.Err)
}

func watch(ctx context.Context, client *http.Client, apiKey string, info Info, interval time.Duration, failures int,
	died <-chan struct{}, exitErr func() error) <-chan error {
	if failures < 1 {
		failures = 1
	}
	out := make(chan error, 1)
	go func() {
		defer close(out)
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		bad := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-died:
				out <- exitErr()
				return
			case <-ticker.C:
			}
			err := ready.Alive(ctx, client, apiKey, info)
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				bad = 0
				continue
			}
			select {
			case <-died: // the probe failed because the server is dying
				out <- exitErr()
				return
			default:
			}
			if bad++; bad >= failures {
				out <- &HealthError{Failures: bad, Last: err}
				return
			}
		}
	}()
	return out
}
