package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The simulator can be profiled like vLLM and SGLang: POST /start_profile
// starts recording engine steps, POST /stop_profile writes them as a
// Chrome trace (the JSON the torch profiler writes) through
// Options.Profiles. Each step is a "execute_model" annotation holding one
// kernel per term of the cost model, so a decode slowdown shows as the
// mlp and attention kernels getting slower per step while sampling and
// prefill_chunk keep their time. vLLM serves the endpoints only when
// VLLM_TORCH_PROFILER_DIR is set; the simulator only when Options.Profiles
// is set (`perfgate sim --profile-dir`), and answers 404 otherwise.

// The kernels of a step, one per term of the cost model.
const (
	opSampling  = iota // StepBase: scheduling, sampling, launch overhead
	opMLP              // DecodeFixed + DecodePerSeq per decoding sequence: weight reads
	opAttention        // PerContextToken per context token: KV reads
	opPrefill          // PrefillPerToken per prompt token of the step's chunks
	numOps
)

var opNames = [numOps]string{"sampling", "mlp", "attention", "prefill_chunk"}

// MaxProfileSteps bounds the steps one profile records (about 100 bytes
// each in memory): a profile left running records its first steps only,
// and the trace says it was truncated.
const MaxProfileSteps = 1 << 17

// profiler records steps between /start_profile and /stop_profile. Its
// fields are guarded by metricsState.mu, which stepDone holds.
type profiler struct {
	active    bool
	maxSteps  int // 0: MaxProfileSteps
	steps     []stepStats
	truncated bool
	started   time.Time
	seq       int
}

// record keeps st while a profile runs.
func (p *profiler) record(st stepStats) {
	if !p.active {
		return
	}
	limit := p.maxSteps
	if limit <= 0 || limit > MaxProfileSteps {
		limit = MaxProfileSteps
	}
	if len(p.steps) >= limit {
		p.truncated = p.maxSteps <= 0 || p.maxSteps > MaxProfileSteps
		return
	}
	p.steps = append(p.steps, st)
}

// handleStartProfile starts recording. A JSON body may bound the steps
// ({"num_steps": N}, as SGLang and newer vLLM take it); a profile already
// running is restarted.
func (s *Server) handleStartProfile(w http.ResponseWriter, r *http.Request) {
	if s.opts.Profiles == nil {
		s.notFound(w, nil)
		return
	}
	var body struct {
		NumSteps int `json:"num_steps"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&body); err != nil && err != io.EOF {
			s.writeError(w, http.StatusBadRequest, "start_profile body: %v", err)
			return
		}
	}
	s.met.mu.Lock()
	p := &s.met.prof
	p.active, p.maxSteps, p.steps, p.truncated, p.started = true, body.NumSteps, nil, false, time.Now()
	s.met.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// handleStopProfile stops recording and writes the trace; 400 when no
// profile runs, 500 when the trace cannot be written.
func (s *Server) handleStopProfile(w http.ResponseWriter, r *http.Request) {
	if s.opts.Profiles == nil {
		s.notFound(w, nil)
		return
	}
	s.met.mu.Lock()
	p := &s.met.prof
	if !p.active {
		s.met.mu.Unlock()
		s.writeError(w, http.StatusBadRequest, "no profile is running: POST /start_profile first")
		return
	}
	steps, truncated, started := p.steps, p.truncated, p.started
	p.active, p.steps = false, nil
	p.seq++
	name := fmt.Sprintf("sim.%d.%d.pt.trace.json", started.UnixMilli(), p.seq)
	s.met.mu.Unlock()
	out, err := s.opts.Profiles(name)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "writing the profile: %v", err)
		return
	}
	err = writeTrace(out, steps, started, truncated)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, "writing the profile %s: %v", name, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// writeTrace writes steps as a Chrome trace: per step an "execute_model"
// annotation on the CPU thread and, on the GPU stream, one kernel per
// non-zero cost term laid end to end. Times are microseconds since the
// profile started.
func writeTrace(w io.Writer, steps []stepStats, started time.Time, truncated bool) error {
	bw := bufio.NewWriter(w)
	us := func(ns float64) string { return strconv.FormatFloat(ns/1e3, 'f', -1, 64) }
	fmt.Fprintf(bw, "{\"schemaVersion\":1,\"displayTimeUnit\":\"ms\",\"perfgate_sim\":{\"steps\":%d,\"truncated\":%t},\"traceEvents\":[\n", len(steps), truncated)
	first := true
	emit := func(format string, args ...any) {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(bw, format, args...)
	}
	for i, st := range steps {
		at := float64(st.Start.Sub(started))
		emit(`{"ph":"X","cat":"user_annotation","name":"execute_model","pid":1,"tid":1,"ts":%s,"dur":%s,"args":{"step":%d,"decode_seqs":%d,"prefill_tokens":%d,"context_tokens":%d}}`,
			us(at), us(float64(st.Duration)), i, st.DecodeSeqs, st.PrefillTokens, st.ContextTokens)
		for op, d := range st.Ops {
			if d <= 0 {
				continue
			}
			emit(`{"ph":"X","cat":"kernel","name":%q,"pid":0,"tid":7,"ts":%s,"dur":%s}`, opNames[op], us(at), us(d))
			at += d
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}
