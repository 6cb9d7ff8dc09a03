package importers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// Run is one benchmark run at one load point, as another tool recorded it:
// what becomes one trial.
type Run struct {
	// Source names where the run came from ("benchmarks.json
	// benchmarks[2]"), for errors and notes.
	Source string
	// Tool is the importer's name ("guidellm").
	Tool  string
	Model string
	// Label names the load point for a cell name ("c16", "rate4",
	// "sync"); "" when the file has one point.
	Label string
	// Shape is the load identity the file records (result.Bench).
	Shape     result.Bench
	Completed int
	Failed    int
	DurationS float64
	// Values are perfgate metric ids, in perfgate's units.
	Values map[string]float64
	// Lacks are the perfgate ids the format records no value for.
	Lacks []string
	// Requests are the per-request records the file keeps (may be a
	// sample of the run's requests; nil when it keeps none).
	Requests []Request
	// Errors counts failed requests by type, with a first sample.
	Errors       map[string]int
	ErrorSamples map[string]string
	Notes        []string
}

// Request is one request's record in perfgate's units: milliseconds, and
// 0 where the file has no value.
type Request struct {
	Success      bool
	TTFTms       float64
	E2ELms       float64
	TPOTms       float64
	InputTokens  int
	OutputTokens int
}

// summarize sets base.<stat> for every statistic of metrics.Stats over xs.
func summarize(v map[string]float64, base string, xs []float64) {
	if len(xs) == 0 {
		return
	}
	for st, x := range metrics.Summarize(xs) {
		v[metrics.ID{Base: base, Stat: st}.String()] = x
	}
}

// fromRequests fills, from the per-request records, every distribution
// statistic the tool's aggregates did not give, and says which it filled.
func (r *Run) fromRequests() {
	if len(r.Requests) == 0 {
		return
	}
	var ttft, e2el, tpot []float64
	for _, q := range r.Requests {
		if !q.Success {
			continue
		}
		if q.TTFTms > 0 {
			ttft = append(ttft, q.TTFTms)
		}
		if q.E2ELms > 0 {
			e2el = append(e2el, q.E2ELms)
		}
		if q.TPOTms > 0 && q.OutputTokens > 1 {
			tpot = append(tpot, q.TPOTms)
		}
	}
	derived := map[string]float64{}
	summarize(derived, "ttft_ms", ttft)
	summarize(derived, "e2el_ms", e2el)
	summarize(derived, "tpot_ms", tpot)
	var filled []string
	for id, x := range derived {
		if _, ok := r.Values[id]; !ok {
			r.Values[id] = x
			filled = append(filled, id)
		}
	}
	if len(filled) > 0 {
		sort.Strings(filled)
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %s computed from the %d per-request records the file keeps", r.Source, strings.Join(filled, ", "), len(r.Requests)))
	}
	r.Lacks = subtract(r.Lacks, r.Values)
}

// subtract drops from ids (metric ids or distribution names) those have
// holds a value for: the id itself, or any statistic of the distribution.
func subtract(ids []string, have map[string]float64) []string {
	var out []string
	for _, id := range ids {
		found := false
		for k := range have {
			if k == id || strings.HasPrefix(k, id+".") {
				found = true
				break
			}
		}
		if !found {
			out = append(out, id)
		}
	}
	return out
}

// derive adds what perfgate computes from a run's counts and throughputs:
// success_rate, qpm, tpm, completed, failed, and per-GPU throughput.
func (r *Run) derive(gpus int) {
	v := r.Values
	if t := r.Completed + r.Failed; t > 0 {
		v["success_rate"] = float64(r.Completed) / float64(t)
	}
	v["completed"], v["failed"] = float64(r.Completed), float64(r.Failed)
	metrics.DeriveRates(v, gpus)
	if r.DurationS > 0 {
		v["duration_s"] = r.DurationS
	}
	for id, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > result.MaxValue {
			delete(v, id)
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %s = %g is not a measurement and was left out", r.Source, id, x))
		}
	}
}

// identity is a cell's spec and hash from its load shape.
func identity(b result.Bench) (json.RawMessage, string, error) {
	spec, err := json.Marshal(result.Spec{Kind: result.KindBench, Bench: &b})
	if err != nil {
		return nil, "", fmt.Errorf("workload identity: %w", err)
	}
	sum := sha256.Sum256(spec)
	return spec, hex.EncodeToString(sum[:]), nil
}
