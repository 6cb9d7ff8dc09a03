package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Options are the parts of a server that are not knobs: callbacks into the
// program that hosts it.
type Options struct {
	// OnExit is called once, on its own goroutine, when the
	// faults.exit_after_requests limit is passed. `perfgate sim` exits the
	// process from it; the library itself never exits.
	OnExit func()
	// Profiles, when set, makes /start_profile and /stop_profile work (as
	// VLLM_TORCH_PROFILER_DIR does for vLLM): it opens where a finished
	// profile's Chrome trace named name is written. `perfgate sim
	// --profile-dir` creates files there; tests keep them in memory.
	Profiles func(name string) (io.WriteCloser, error)
	// VirtualTime runs the engine on a virtual clock: a step's cost
	// advances the clock at once instead of being slept, and every
	// server-side timestamp (Records, the latency histograms of /metrics
	// and Stats) is read from that clock, starting at a fixed instant. The
	// model's times are then exact and no load on the machine can blur
	// them, which is what tests of the model want. Clients get their tokens
	// as fast as the machine computes them, so a client-side measurement
	// of such a server measures the machine, not the model. The
	// first-token delay and the slow-start fault stay on real time.
	VirtualTime bool
}

// Server is the simulated vLLM server. It is an http.Handler; Close stops
// its engine goroutine.
type Server struct {
	cfg      atomic.Pointer[Config]
	updateMu sync.Mutex
	opts     Options
	born     time.Time // real time, for slow start and /v1/models
	clk      *clock
	eng      *engine
	met      *metricsState
	routes   map[string]map[string]http.HandlerFunc
	persona  string // Config.Engine at start; see personality.go
	received atomic.Int64
	session  Session // drawn at start, constant afterwards

	faultMu   sync.Mutex
	faultRand *rand.Rand
	faultSeed uint64
	exitOnce  sync.Once
}

var _ http.Handler = (*Server)(nil)

// New starts a simulator with cfg. It panics if cfg is invalid, like
// regexp.MustCompile; use NewServer to get the error instead.
func New(cfg Config) *Server {
	s, err := NewServer(cfg, Options{})
	if err != nil {
		panic("sim.New: " + err.Error())
	}
	return s
}

// NewServer starts a simulator with cfg and opts, or reports why cfg is
// invalid.
func NewServer(cfg Config, opts Options) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid simulator config: %w", err)
	}
	s := &Server{opts: opts, born: time.Now(), clk: newClock(opts.VirtualTime), met: newMetricsState()}
	c := cfg
	s.cfg.Store(&c)
	s.faultSeed = cfg.Seed
	s.faultRand = newRand(cfg.Seed, 2)
	core := newCore(cfg.Seed, s.clk.now(), s.met)
	core.received = s.received.Load
	core.session = startSession(cfg)
	s.session = core.session
	s.eng = newEngine(core, s.cfg.Load, s.met, s.clk)
	s.persona = canonEngine(cfg.Engine)
	s.routes = s.routesFor(s.persona)
	return s, nil
}

// Close stops the engine goroutine. Requests still streaming end with an
// in-stream error; new ones get 503. It is safe to call more than once.
func (s *Server) Close() { s.eng.stop() }

// Config returns a copy of the current configuration.
func (s *Server) Config() Config { return *s.cfg.Load() }

// Update changes the configuration at run time: fn edits a copy, which is
// validated and then used from the next engine step on.
func (s *Server) Update(fn func(*Config)) error {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	c := *s.cfg.Load()
	fn(&c)
	if err := c.Validate(); err != nil {
		return fmt.Errorf("invalid simulator config: %w", err)
	}
	if canonEngine(c.Engine) != s.persona {
		return fmt.Errorf("invalid simulator config: engine: fixed at start (%q), cannot become %q", s.persona, c.Engine)
	}
	s.cfg.Store(&c)
	s.eng.signal()
	return nil
}

// Session returns the per-start offsets drawn when the server started.
func (s *Server) Session() Session { return s.session }

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats {
	st := s.met.snapshot(s.eng)
	st.Received = s.received.Load()
	st.Session = s.session
	return st
}

// Records returns the ground truth of the most recent finished or aborted
// sequences (up to 20000), oldest first.
func (s *Server) Records() []Record { return s.met.recordsCopy() }

// ServeHTTP routes a request; unknown paths and methods answer like the
// impersonated engine's framework does (FastAPI for vLLM and SGLang:
// {"detail": "Not Found"} / "Method Not Allowed"; gin for ollama).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		s.notFound(w, nil)
		return
	}
	h, ok := methods[r.Method]
	if !ok {
		s.notFound(w, methods)
		return
	}
	h(w, r)
}

func (s *Server) stopped() bool {
	select {
	case <-s.eng.quit:
		return true
	default:
		return false
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"encoding failed","type":"InternalServerError","param":null,"code":500}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// apiError is vLLM's error body: {"error": {message, type, param, code}}.
type apiError struct {
	Error errorInfo `json:"error"`
}

type errorInfo struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

var errorTypes = map[int]string{
	http.StatusBadRequest:          "BadRequestError",
	http.StatusNotFound:            "NotFoundError",
	http.StatusTooManyRequests:     "RateLimitError",
	http.StatusInternalServerError: "InternalServerError",
	http.StatusServiceUnavailable:  "ServiceUnavailableError",
}

func newAPIError(status int, msg string) apiError {
	return apiError{Error: errorInfo{Message: msg, Type: errorTypes[status], Code: status}}
}

// writeError answers an error in the shape of the engine the server
// impersonates (see errorBody).
func (s *Server) writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, s.errorBody(status, fmt.Sprintf(format, args...)))
}
