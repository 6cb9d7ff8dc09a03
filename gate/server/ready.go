package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/redact"
)

// Info is what a ready server says about itself.
type Info struct {
	URL     string
	Version string // GET /version; empty when the server has none
	Models  []string
	// MaxModelLen is the first model's context length, 0 if not reported.
	MaxModelLen int
}

// NotReadyError says the server did not become ready in time. Last is the
// last probe's failure; Tail the end of the log of a launched server.
type NotReadyError struct {
	URL    string
	Waited time.Duration
	Last   error
	Tail   string
}

func (e *NotReadyError) Error() string {
	msg := fmt.Sprintf("server %s not ready after %s", redact.URL(e.URL), e.Waited.Round(time.Millisecond))
	if e.Last != nil {
		msg += ": " + e.Last.Error()
	}
	return msg
}

func (e *NotReadyError) Unwrap() error { return e.Last }

// pollInterval is how often readiness is probed: short against the
// simulator, negligible against a model that loads for minutes.
const pollInterval = 100 * time.Millisecond

// probeTimeout bounds one readiness or health request.
const probeTimeout = 5 * time.Second

// Ready waits until the launched server is ready: it learns the URL
// (configured, or announced in the output), then waits for GET /health to
// answer 200 and GET /v1/models to list a model, then records GET /version.
// It fails fast with an *ExitError when the server exits meanwhile, and
// with a *NotReadyError after timeout (DefaultReadyTimeout when zero).
func (p *Process) Ready(ctx context.Context, client *http.Client, timeout time.Duration) (Info, error) {
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if p.url == "" {
		select {
		case u := <-p.log.addr:
			p.url = u
		case <-p.done:
			return Info{}, p.Err()
		case <-ctx.Done():
			return Info{}, p.notReady(start, errors.New("no server.url given and the server announced no address on its output"))
		}
	}
	info, err := WaitReady(ctx, client, p.url, p.done)
	if err != nil {
		if p.Err() != nil {
			return Info{}, p.Err()
		}
		var nr *NotReadyError
		if errors.As(err, &nr) {
			nr.Waited = time.Since(start)
			nr.Tail = p.Tail(40)
		}
		return Info{}, err
	}
	return info, nil
}

// URL is the server's base URL: configured, or announced once Ready saw it.
func (p *Process) URL() string { return p.url }

func (p *Process) notReady(start time.Time, last error) error {
	return &NotReadyError{URL: p.url, Waited: time.Since(start), Last: last, Tail: p.Tail(40)}
}

// WaitReady polls a server at baseURL until /health answers 200 and
// /v1/models lists a model, then reads /version. It also serves servers
// perfgate did not launch (died may be nil). It returns a *NotReadyError
// when ctx ends first, and ErrDied when died is closed first.
func WaitReady(ctx context.Context, client *http.Client, baseURL string, died <-chan struct{}) (Info, error) {
	if client == nil {
		client = http.DefaultClient
	}
	base := strings.TrimRight(baseURL, "/")
	start := time.Now()
	var last error
	wait := func() error {
		t := time.NewTimer(pollInterval)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return &NotReadyError{URL: baseURL, Waited: time.Since(start), Last: last}
		case <-died:
			return ErrDied
		case <-t.C:
			return nil
		}
	}
	// try probes url; a probe cut short by the deadline keeps the previous
	// failure, which says why the server was not ready ("503 Service
	// Unavailable") better than "context deadline exceeded".
	try := func(url string, into any) error {
		err := probe(ctx, client, url, into)
		if err != nil && (ctx.Err() == nil || last == nil) {
			last = err
		}
		return err
	}
	for {
		if try(base+"/health", nil) == nil {
			last = nil
			break
		}
		if auth := (*AuthError)(nil); errors.As(last, &auth) {
			return Info{}, last
		}
		if err := wait(); err != nil {
			return Info{}, err
		}
	}
	info := Info{URL: base}
	for {
		var models modelList
		if try(base+"/v1/models", &models) == nil {
			if len(models.Data) > 0 {
				for _, m := range models.Data {
					info.Models = append(info.Models, m.ID)
				}
				info.MaxModelLen = models.Data[0].MaxModelLen
				break
			}
			last = errors.New("GET /v1/models lists no model")
		}
		if auth := (*AuthError)(nil); errors.As(last, &auth) {
			return Info{}, last
		}
		if err := wait(); err != nil {
			return Info{}, err
		}
	}
	var v struct {
		Version string `json:"version"`
	}
	if probe(ctx, client, base+"/version", &v) == nil {
		info.Version = v.Version
	}
	return info, nil
}

// AuthError says the server refused the readiness probe's credentials.
// It is final: waiting longer cannot fix an API key.
type AuthError struct {
	URL    string
	Status string
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("GET %s: %s: the server wants an API key (set PERFGATE_API_KEY or OPENAI_API_KEY to the key it was started with)", e.URL, e.Status)
}

// ErrDied is returned by WaitReady when the process it watches exits.
var ErrDied = errors.New("server process exited")

type modelList struct {
	Data []struct {
		ID          string `json:"id"`
		MaxModelLen int    `json:"max_model_len"`
	} `json:"data"`
}

// probe GETs url and wants 200; with into, it decodes the JSON body.
func probe(ctx context.Context, client *http.Client, url string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", redact.URL(url), unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", redact.URL(url), err)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return &AuthError{URL: redact.URL(url), Status: resp.Status}
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", redact.URL(url), resp.Status)
	}
	if into != nil {
		if err := json.Unmarshal(body, into); err != nil {
			return fmt.Errorf("GET %s: %w", redact.URL(url), err)
		}
	}
	return nil
}

// unwrapURLError drops *url.Error's repetition of method and URL.
func unwrapURLError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && strings.HasPrefix(err.Error(), "Get ") {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// HealthError says /health failed Failures times in a row during a run.
type HealthError struct {
	Failures int
	Last     error
}

func (e *HealthError) Error() string {
	return fmt.Sprintf("server health check failed %d times in a row: %v", e.Failures, e.Last)
}

func (e *HealthError) Unwrap() error { return e.Last }

// Watch reports the first failure of the server during a run: its exit (an
// *ExitError) or GET /health failing `failures` times in a row, polled
// every interval (a *HealthError). The channel receives at most one error
// and is closed when ctx ends. A run selects on it to fail fast (exit 3)
// instead of timing out request by request.
func (p *Process) Watch(ctx context.Context, client *http.Client, interval time.Duration, failures int) <-chan error {
	return watch(ctx, client, p.url, interval, failures, p.done, p.Err)
}

// WatchHealth is Watch for a server perfgate did not launch.
func WatchHealth(ctx context.Context, client *http.Client, baseURL string, interval time.Duration, failures int) <-chan error {
	return watch(ctx, client, baseURL, interval, failures, nil, nil)
}

func watch(ctx context.Context, client *http.Client, baseURL string, interval time.Duration, failures int,
	died <-chan struct{}, exitErr func() error) <-chan error {
	if client == nil {
		client = http.DefaultClient
	}
	if failures < 1 {
		failures = 1
	}
	out := make(chan error, 1)
	health := strings.TrimRight(baseURL, "/") + "/health"
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
			err := probe(ctx, client, health, nil)
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
