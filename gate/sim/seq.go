package sim

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// seq is one prompt being served: the engine's scheduling state plus the
// output queue its HTTP handler drains. Fields above the marker are set
// before the engine sees the sequence and never change; the engine-state
// block is touched only by the engine goroutine.
type seq struct {
	num       uint64   // arrival number, 1-based
	index     int      // choice index within its request
	prompt    []uint64 // token ids (exact ids, or hashes of text pieces)
	salt      string
	maxTokens int
	minTokens int
	ignoreEOS bool
	stop      []string
	rng       *rand.Rand // generated tokens; seeded from the request or the server seed
	arrival   time.Time
	aborted   atomic.Bool

	// engine state
	computed    int // tokens whose KV is computed (prompt + generated prefix)
	generated   int // output tokens sampled
	blocks      int // KV blocks held
	eosAt       int // output length at which EOS is emitted; 0 = never
	started     bool
	scheduledAt time.Time
	firstAt     time.Time
	lastAt      time.Time
	preemptions int
	cachedHit   int
	text        strings.Builder // generated text, kept only when stop strings are set
	emitted     int             // bytes of text already handed to the output
	pendTokens  int
	pendText    []byte
	lastSent    time.Time
	finished    bool
	chunks      int

	out *output
}

// numTokens is the sequence's full length so far (prompt plus output).
func (s *seq) numTokens() int { return len(s.prompt) + s.generated }

// chunk is one group of tokens handed to the HTTP side.
type chunk struct {
	index      int // choice index
	text       string
	tokens     int // tokens in this chunk
	total      int // cumulative completion tokens
	finish     string
	stopReason string
	at         time.Time
}

// output is the queue between the engine (producer) and one request's
// handler (consumer). The engine never blocks on it: it appends and signals
// the request's notify channel without waiting, so a slow client cannot stall
// the batch (its tokens just accumulate, as in vLLM's output queue).
type output struct {
	requestID string
	mu        sync.Mutex
	chunks    []chunk
	notify    chan struct{} // shared by all sequences of one request, capacity 1
}

func (o *output) push(c chunk) {
	o.mu.Lock()
	o.chunks = append(o.chunks, c)
	o.mu.Unlock()
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// take moves the pending chunks out, reusing buf's storage.
func (o *output) take(buf []chunk) []chunk {
	o.mu.Lock()
	buf = append(buf[:0], o.chunks...)
	clear(o.chunks)
	o.chunks = o.chunks[:0]
	o.mu.Unlock()
	return buf
}

// vocab is what the simulated model says. Every entry is one token under
// the simulator's own tokenizer (a space plus at most four letters), so a
// client that re-tokenizes the output text approximately gets the count right.
var vocab = [...]string{" the", " of", " and", " to", " a", " in", " is", " it", " that", " for",
	" on", " was", " with", " he", " as", " at", " by", " this", " had", " not", " are", " but",
	" from", " or", " have", " an", " they", " one", " you", " were", " her", " all", " she",
	" when", " will", " up", " each", " then", " some", " time", " into", " two", " more",
	" many", " so", " make", " like", " long", " day", " way", " sun", " sea", " tree", " rain",
	" cat", " dog", " red", " blue", " run", " sky", " road", " gold", " fire", " wind"}

// drawEOS picks the output length at which a sequence emits EOS: geometric
// with the given mean, but never before minTokens. 0 means never.
func drawEOS(r *rand.Rand, mean float64, minTokens int) int {
	if mean <= 0 {
		return 0
	}
	n := 1
	if mean > 1 {
		p := 1 / mean
		n = 1 + int(math.Floor(math.Log(1-r.Float64())/math.Log(1-p)))
	}
	return max(n, minTokens, 1)
}

// nextToken samples one token and returns its text, the text to emit (cut
// at a stop string), and the finish reason when the sequence is done.
func (s *seq) nextToken(cfg *Config) (emit string, finish, stopReason string) {
	tok := vocab[s.rng.IntN(len(vocab))]
	s.generated++
	emit = tok
	if len(s.stop) > 0 {
		prev := s.text.Len()
		s.text.WriteString(tok)
		full := s.text.String()
		for _, st := range s.stop {
			if st == "" || s.generated < s.minTokens {
				continue
			}
			from := max(0, prev-len(st)+1)
			if i := strings.Index(full[from:], st); i >= 0 {
				cut := from + i
				emit = ""
				if cut > s.emitted {
					emit = full[s.emitted:cut]
				}
				s.emitted = max(s.emitted, cut)
				return emit, "stop", st
			}
		}
		s.emitted = s.text.Len()
	}
	switch {
	case s.eosAt > 0 && s.generated >= s.eosAt && s.generated < s.maxTokens:
		return emit, "stop", ""
	case s.generated >= s.maxTokens:
		return emit, "length", ""
	}
	return emit, "", ""
}
