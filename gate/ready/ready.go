// Package ready is the one readiness protocol of perfgate: how it decides
// that an OpenAI-compatible server is up, whether perfgate launched it
// (--server-cmd, server.command) or only points at it (--url). Both paths
// use Wait, so a server is ready under one exactly when it is ready under
// the other.
//
// The protocol, one attempt every Interval until Timeout:
//
//  1. GET /health. 200: the server is healthy. 404: it has no health
//     endpoint (many OpenAI-compatible servers and proxies), and step 2
//     alone decides. 401 or 403: final, the API key is missing or wrong.
//     Anything else (503 while a model loads, connection refused): retry.
//  2. GET /v1/models. 200 listing at least one model: ready. 401 or 403:
//     final. 404 from a server whose /health answered 200: final, it is up
//     but does not speak the OpenAI API. 404 while /health is 404 too may
//     be a proxy whose backend still starts: retry. Anything else: retry.
//  3. GET /version, best effort: it names the server's version when it
//     has one.
//
// An engine profile (gate/engine) may name its own health path, or none
// (Options.HealthPath, Options.NoHealth): ollama has no /health, so its
// readiness is /v1/models alone and no probe waits on a 404.
//
// Answers that waiting cannot change end the wait at once instead of after
// a timeout of minutes. The package does no I/O besides the probes; hints
// go to the writer it is given.
package ready

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/redact"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout  = 2 * time.Minute
	DefaultInterval = 100 * time.Millisecond
	// DefaultHintEvery is how often a long wait says what it waits for.
	DefaultHintEvery = 30 * time.Second
	// probeTimeout bounds one probe request.
	probeTimeout = 5 * time.Second
	// bodyLimit bounds what is read of a probe's answer.
	bodyLimit = 4 << 20
)

// Options describe one readiness wait.
type Options struct {
	// URL is the server's base URL (a trailing "/" or "/v1" is dropped).
	URL string
	// Client sends the probes; nil means http.DefaultClient.
	Client *http.Client
	// APIKey is sent as "Authorization: Bearer" on every probe (vLLM
	// started with --api-key guards /v1/models). It never appears in an
	// error: text from the server is scrubbed of it.
	APIKey string
	// Scrubber knows further secret values to remove from text from the
	// server (a launched server's environment and flags); nil: the API
	// key and credential shapes only.
	Scrubber *redact.Scrubber
	// HealthPath is the health endpoint probed in step 1; "/health" when
	// empty. NoHealth skips step 1: the engine has no health endpoint
	// (ollama), so /v1/models alone decides.
	HealthPath string
	NoHealth   bool
	// NoModelsHint is added to the "no models listed" answer: how the
	// engine comes to list a model (ollama lists one only once it was
	// pulled or created), so a wait of minutes says what is missing.
	NoModelsHint string
	// Timeout bounds the whole wait; DefaultTimeout when zero.
	Timeout time.Duration
	// Interval is the pause between attempts; DefaultInterval when zero.
	Interval time.Duration
	// Died, when not nil, is closed when the server process exits: the wait
	// then ends at once with ErrDied.
	Died <-chan struct{}
	// Hints, when not nil, receives a line every HintEvery
	// (DefaultHintEvery when zero) naming the address probed and the last
	// answer, so a wait of minutes is never silent.
	Hints     io.Writer
	HintEvery time.Duration
	// Launched says perfgate started this server (server.command): its
	// refused connections are its start-up. A server perfgate did not
	// start that refuses every connection for RefusedHintAfter
	// (DefaultRefusedHintAfter when zero) gets one hint on Hints naming
	// what to check, long before a ready timeout sized for model loading
	// ends (refused.go).
	Launched         bool
	RefusedHintAfter time.Duration
}

// Model is one entry of GET /v1/models.
type Model struct {
	ID          string `json:"id"`
	MaxModelLen int    `json:"max_model_len"`
	// Meta is llama.cpp's model metadata; NVocab, its vocabulary size, is
	// what random token ids must stay below (0: not reported).
	Meta struct {
		NVocab int `json:"n_vocab"`
	} `json:"meta"`
}

// Info is what a ready server says about itself.
type Info struct {
	// URL is the base URL probed, without a trailing slash or /v1.
	URL string
	// Version is GET /version's "version"; empty when the server has none.
	Version string
	// Models lists the models the server serves, in its order.
	Models []Model
	// Health is true when GET /health answered 200; false when the server
	// has no /health (404) and /v1/models stands in for it.
	Health bool
	// HealthPath is the health endpoint that answered ("" means
	// "/health").
	HealthPath string
}

// IDs returns the model ids in the server's order.
func (i Info) IDs() []string {
	ids := make([]string, len(i.Models))
	for k, m := range i.Models {
		ids[k] = m.ID
	}
	return ids
}

// LivenessPath is the endpoint that says the server is alive: /health when
// it has one, else /v1/models. A health watch during a run probes it, so a
// server without /health is not declared dead for lacking one.
func (i Info) LivenessPath() string {
	if i.Health {
		if i.HealthPath != "" {
			return i.HealthPath
		}
		return "/health"
	}
	return "/v1/models"
}

// NotReadyError says the server did not become ready within the timeout.
// Last is the last probe's failure.
type NotReadyError struct {
	URL    string
	Waited time.Duration
	Last   error
}

func (e *NotReadyError) Error() string {
	msg := fmt.Sprintf("server %s not ready after %s", redact.URL(e.URL), e.Waited.Round(time.Millisecond))
	if e.Last != nil {
		msg += ": " + e.Last.Error()
	}
	return msg
}

func (e *NotReadyError) Unwrap() error { return e.Last }

// AuthError says the server refused the probe's credentials (401 or 403).
// It is final: waiting cannot fix an API key. It never holds the key nor
// the response body (a server may echo the credential it got).
type AuthError struct {
	URL     string // redacted
	Path    string
	Status  int
	KeySent bool
}

func (e *AuthError) Error() string {
	if !e.KeySent {
		return fmt.Sprintf("server at %s: GET %s: HTTP %d: the server requires an API key and none was sent; set PERFGATE_API_KEY or OPENAI_API_KEY to the key it was started with", e.URL, e.Path, e.Status)
	}
	return fmt.Sprintf("server at %s: GET %s: HTTP %d: the server rejected the API key; check PERFGATE_API_KEY (or OPENAI_API_KEY, used when PERFGATE_API_KEY is unset)", e.URL, e.Path, e.Status)
}

// NotOpenAIError says a healthy server answers 404 on /v1/models: it is up
// but not OpenAI-compatible (or the URL points at the wrong service). It is
// final.
type NotOpenAIError struct{ URL string }

func (e *NotOpenAIError) Error() string {
	return fmt.Sprintf("server at %s: GET /v1/models: HTTP 404: the server does not look like an OpenAI-compatible server (check the URL and that it serves /v1/models)", e.URL)
}

// ErrDied is returned when Options.Died is closed before the server was
// ready.
var ErrDied = errors.New("server process exited")

// ErrInterrupted is wrapped by the error returned when the caller's
// context ends (Ctrl-C) before the server was ready.
var ErrInterrupted = errors.New("interrupted while waiting for the server")

// Wait runs the readiness protocol against o.URL. It returns the server's
// Info once ready; otherwise an *AuthError or *NotOpenAIError at the first
// final answer, ErrDied when o.Died closes, an error wrapping
// ErrInterrupted (and the context's error) when ctx ends, and a
// *NotReadyError after o.Timeout.
func Wait(ctx context.Context, o Options) (Info, error) {
	o = o.withDefaults()
	base := Base(o.URL)
	shown := redact.URL(base)
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	p := prober{o: o, base: base, shown: shown}
	var last error
	// note records a failure; a probe cut short by the deadline keeps the
	// previous one, which says why the server was not ready ("HTTP 503")
	// better than "context deadline exceeded".
	note := func(err error) {
		if wctx.Err() == nil || last == nil {
			last = err
		}
	}
	hint := time.NewTicker(o.HintEvery)
	defer hint.Stop()
	refused := refusals{o: o, shown: shown}
	for {
		info, err := p.attempt(wctx)
		if err == nil {
			return info, nil
		}
		var auth *AuthError
		var notOpenAI *NotOpenAIError
		if errors.As(err, &auth) || errors.As(err, &notOpenAI) {
			return Info{}, err
		}
		note(err)
		refused.saw(err, time.Now())
		t := time.NewTimer(o.Interval)
		select {
		case <-t.C:
			continue
		case <-hint.C:
			t.Stop()
			if o.Hints != nil {
				fmt.Fprintf(o.Hints, "perfgate: waiting for the server at %s to become ready (%s of %s; last: %v)\n",
					shown, time.Since(start).Round(time.Second), o.Timeout, last)
			}
		case <-o.Died:
			t.Stop()
			return Info{}, ErrDied
		case <-wctx.Done():
			t.Stop()
			if ctx.Err() != nil {
				return Info{}, fmt.Errorf("%w at %s (last: %v): %w", ErrInterrupted, shown, last, ctx.Err())
			}
			return Info{}, &NotReadyError{URL: base, Waited: time.Since(start), Last: last}
		}
	}
}

// Base is the base URL probes are made against: without a trailing slash
// or /v1 (users paste either form).
func Base(raw string) string {
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(raw, "/"), "/v1"), "/")
}

func (o Options) withDefaults() Options {
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.HintEvery <= 0 {
		o.HintEvery = DefaultHintEvery
	}
	if o.RefusedHintAfter <= 0 {
		o.RefusedHintAfter = DefaultRefusedHintAfter
	}
	if o.HealthPath == "" {
		o.HealthPath = "/health"
	}
	return o
}
