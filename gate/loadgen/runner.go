package loadgen

import (
	"context"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/gate/engine"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// Runner runs manifests against one server. It is safe to run one
// manifest at a time; it keeps HTTP transports between calls so
// connections are reused across trials.
type Runner struct {
	cfg   Config
	base  string // URL without trailing slash or /v1
	nonce string // distinguishes this run's cache salts from earlier runs'
	// seq numbers the trials this Runner has started, of any manifest or
	// result: with the nonce it makes every trial's cache salt and request
	// ids unique, also when one Runner measures both arms (the demo), where
	// trial indices repeat.
	seq atomic.Int64

	mu      sync.Mutex
	clients map[poolKey]*client
	ready   readyOnce  // the readiness waits' history (guarded by mu; ready_once.go)
	detail  sync.Mutex // serialises writes to cfg.Detailed
	// detailErr is the first error writing detailed records.
	detailErr error
	// calibrations are the prompt calibrations of text cells, by hash and
	// model (guarded by mu).
	calibrations map[string]result.PromptCalibration
	// engine is the resolved engine profile (resolveEngine), with the
	// version the server's own endpoint named when it was detected.
	engineMu      sync.Mutex
	engine        engine.Profile
	engineVersion string
	// onEvent is passed to clients (tests and benchmarks only).
	onEvent func(anchor time.Time, at time.Duration, data []byte)
	// tok counts chunk texts after each trial; nil when the server has no
	// /tokenize. probed: the server was asked once already.
	tok    *tokenizer
	probed bool
	// vocab is the vocabulary size the server reported for the model
	// (llama.cpp's /v1/models meta.n_vocab); 0 when it reported none.
	vocab atomic.Int64
}

// New checks cfg and returns a Runner.
func New(cfg Config) (*Runner, error) {
	if err := CheckURL(cfg.URL); err != nil {
		return nil, fmt.Errorf("server URL %w", err)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(cfg.URL, "/"), "/v1")
	return &Runner{
		cfg:     cfg.withDefaults(),
		base:    base,
		nonce:   fmt.Sprintf("%x", time.Now().UnixNano()),
		clients: map[poolKey]*client{},
	}, nil
}

// poolKey tells the shared clients apart: by connection pool size, and
// whether connections are reused.
type poolKey struct {
	conns int
	reuse bool
}

// clientFor returns the shared client for m, with a connection pool as
// large as m's concurrency (or its request count when unlimited). Once the
// engine profile is known, an engine that closes connections after every
// stream gets a client that does not reuse them.
func (r *Runner) clientFor(m *workload.Manifest) *client {
	if r.cfg.Client != nil {
		return &client{http: r.cfg.Client, apiKey: r.cfg.APIKey, scrub: r.cfg.Scrubber, onEvent: r.onEvent}
	}
	conns := m.Concurrency
	if conns <= 0 {
		conns = len(m.Requests)
	}
	key := poolKey{conns: max(1, min(conns, 16384)), reuse: !r.profile().ClosesAfterStream}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[key]; ok {
		return c
	}
	c := &client{http: &http.Client{Transport: newTransport(key.conns, key.reuse)}, apiKey: r.cfg.APIKey, scrub: r.cfg.Scrubber, onEvent: r.onEvent}
	r.clients[key] = c
	return c
}

// Close releases idle connections.
func (r *Runner) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.clients {
		c.http.CloseIdleConnections()
	}
}

// NewResult returns an empty, complete result for m against srv.
func (r *Runner) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return &result.Result{
		Schema:   result.Schema,
		Tool:     result.Tool{Name: "perfgate", Version: r.cfg.ToolVersion},
		Workload: result.Workload{Name: m.Name, Cell: m.Cell, Hash: m.Hash, Spec: m.Spec},
		Server:   srv,
		Complete: true,
		Source:   "perfgate run",
		Trials:   []result.Trial{},
		Warmups:  r.warmupCount(m),
	}
}

// ErrInterrupted is returned (wrapped) when the context was cancelled
// during a run; the result holds what finished.
var ErrInterrupted = errors.New("run interrupted")

// Run prepares the server and runs trials of m. On failure it still
// returns the result so far (Complete false) together with the error;
// the result is nil only if nothing could be recorded.
func (r *Runner) Run(ctx context.Context, m *workload.Manifest, trials int) (*result.Result, error) {
	started := time.Now().UTC()
	srv, err := r.Prepare(ctx, m)
	res := r.NewResult(m, srv)
	res.StartedAt = started
	if err != nil {
		res.Complete, res.IncompleteReason = false, err.Error()
		res.FinishedAt = time.Now().UTC()
		return res, err
	}
	err = r.RunTrials(ctx, m, res, trials)
	return res, err
}
