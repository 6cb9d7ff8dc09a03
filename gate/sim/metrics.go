package sim

import (
	"maps"
	"sync"
	"time"
)

// Bucket bounds (seconds) as vLLM's Prometheus logger declares them, so a
// scrape of the simulator looks like a scrape of vLLM.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
		2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0,
		2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	latencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
		40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// histogram is a cumulative-bucket Prometheus histogram in seconds.
type histogram struct {
	bounds []float64
	counts []uint64 // per bucket, not cumulative; last is +Inf
	sum    float64
	count  uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(d time.Duration) {
	v := d.Seconds()
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i]++
	h.sum += v
	h.count++
}

// Summary is the count and sum of one latency histogram; Mean is Sum/Count.
type Summary struct {
	Count uint64
	Sum   time.Duration
}

// Mean returns the average observation, 0 when there is none.
func (s Summary) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / time.Duration(s.Count)
}

func (h *histogram) summary() Summary {
	return Summary{Count: h.count, Sum: time.Duration(h.sum * float64(time.Second))}
}

// Record is the server's ground truth about one finished (or aborted)
// sequence: what it produced and when.
type Record struct {
	RequestID        string // x-request-id, or the generated one
	Index            int    // choice index within the request
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int // prompt tokens served from the prefix cache
	Chunks           int // token chunks handed to the HTTP side
	Preemptions      int
	Arrival          time.Time
	Scheduled        time.Time
	FirstToken       time.Time
	Finished         time.Time
	FinishReason     string // "length", "stop" or "abort"
}

// Stats is a snapshot of what the simulator produced since New.
type Stats struct {
	Received         int64 // inference requests that reached the server
	Succeeded        int64 // sequences finished with length/stop
	Aborted          int64 // sequences cut by a disconnect, drop or shutdown
	Rejected         int64 // requests answered with a 4xx before serving
	Running          int64
	Waiting          int64
	KVCacheUsage     float64
	PromptTokens     int64
	GenerationTokens int64
	TokenEvents      int64 // SSE token chunks written to clients
	Preemptions      int64
	PrefixQueries    int64 // prompt tokens looked up in the prefix cache
	PrefixHits       int64 // of which found
	Steps            int64
	Faults           map[string]int64 // by kind, e.g. "http_500", "drop"
	TTFT, ITL, E2E   Summary          // ITL is per token
	Queue, TPOT      Summary
	// Session is the per-start offset drawn at start (factors 1 when off).
	Session Session
	// Slips counts the times the engine fell more than 100 ms behind its
	// schedule (its goroutine did not get a CPU in time) and restarted the
	// schedule from the present: the steps around a slip took longer than
	// the model says, which no client-side measurement can undo.
	Slips int64
}

const maxRecords = 20000

// metricsState accumulates everything /metrics and Stats report. The engine
// holds mu across a whole schedule or complete call, so the sink methods
// below assume it is held.
type metricsState struct {
	mu                                   sync.Mutex
	received, succeeded, aborts, rejects int64
	promptTokens, genTokens, events      int64
	preemptions, prefixQ, prefixH, steps int64
	faults                               map[string]int64
	finishReasons                        map[string]int64
	ttft, itl, e2e, queue, tpot          *histogram
	records                              []Record // ring of the last maxRecords
	next                                 int
	prof                                 profiler // /start_profile .. /stop_profile
}

func newMetricsState() *metricsState {
	return &metricsState{faults: map[string]int64{}, finishReasons: map[string]int64{},
		ttft: newHistogram(ttftBuckets), itl: newHistogram(itlBuckets), e2e: newHistogram(latencyBuckets),
		queue: newHistogram(latencyBuckets), tpot: newHistogram(itlBuckets)}
}

func (m *metricsState) stepDone(st stepStats) {
	m.steps++
	m.prof.record(st)
}
func (m *metricsState) preempted() { m.preemptions++ }
func (m *metricsState) prefixQuery(q, h int) {
	m.prefixQ += int64(q)
	m.prefixH += int64(h)
}

func (m *metricsState) scheduled(s *seq, at time.Time) {
	m.queue.observe(at.Sub(s.arrival))
	m.promptTokens += int64(len(s.prompt))
}

func (m *metricsState) token(s *seq, at time.Time, first bool) {
	m.genTokens++
	if first {
		m.ttft.observe(at.Sub(s.arrival))
	} else {
		m.itl.observe(at.Sub(s.lastAt))
	}
}

func (m *metricsState) finished(s *seq, at time.Time, reason string) {
	m.succeeded++
	m.finishReasons[reason]++
	m.e2e.observe(at.Sub(s.arrival))
	if s.generated > 1 {
		m.tpot.observe(s.lastAt.Sub(s.firstAt) / time.Duration(s.generated-1))
	}
	m.record(s, at, reason)
}

// aborted is called without mu held.
func (m *metricsState) aborted(s *seq, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rejected(s, at)
}

// rejected counts a sequence that ended without finishing normally.
func (m *metricsState) rejected(s *seq, at time.Time) {
	m.aborts++
	m.finishReasons["abort"]++
	m.record(s, at, "abort")
}

func (m *metricsState) record(s *seq, at time.Time, reason string) {
	r := Record{RequestID: s.out.requestID, Index: s.index, PromptTokens: len(s.prompt),
		CompletionTokens: s.generated, CachedTokens: s.cachedHit, Chunks: s.chunks,
		Preemptions: s.preemptions, Arrival: s.arrival, Scheduled: s.scheduledAt,
		FirstToken: s.firstAt, Finished: at, FinishReason: reason}
	if len(m.records) < maxRecords {
		m.records = append(m.records, r)
		return
	}
	m.records[m.next] = r
	m.next = (m.next + 1) % maxRecords
}

func (m *metricsState) count(f func(m *metricsState)) {
	m.mu.Lock()
	f(m)
	m.mu.Unlock()
}

func (m *metricsState) fault(kind string) { m.count(func(m *metricsState) { m.faults[kind]++ }) }

func (m *metricsState) snapshot(e *engine) Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Stats{Received: m.received, Succeeded: m.succeeded, Aborted: m.aborts, Rejected: m.rejects,
		Running: e.running.Load(), Waiting: e.waiting.Load(), KVCacheUsage: e.kvUsageValue(),
		PromptTokens: m.promptTokens, GenerationTokens: m.genTokens, TokenEvents: m.events,
		Preemptions: m.preemptions, PrefixQueries: m.prefixQ, PrefixHits: m.prefixH, Steps: m.steps, Slips: e.slips.Load(),
		Faults: maps.Clone(m.faults), TTFT: m.ttft.summary(), ITL: m.itl.summary(), E2E: m.e2e.summary(),
		Queue: m.queue.summary(), TPOT: m.tpot.summary()}
}

// recordsCopy returns the retained records, oldest first.
func (m *metricsState) recordsCopy() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Record, 0, len(m.records))
	out = append(out, m.records[m.next:]...)
	return append(out, m.records[:m.next]...)
}
