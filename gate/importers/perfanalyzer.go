package importers

import (
	"fmt"
	"math"
)

// perfAnalyzerRequests reads the per-request records of GenAI-Perf's raw
// export (profile_export.json, perf_analyzer's format, beside
// profile_export_genai_perf.json): every request's send time and the
// arrival time of each response chunk, in nanoseconds. It returns the
// records (TTFT, E2EL, and TPOT counting each chunk as one token, exact
// when the server streams one token per chunk, as vLLM does) and the
// pooled gaps between chunks (perfgate's ITL). A request without any
// response is a failed one.
func perfAnalyzerRequests(name string, data []byte) ([]Request, []float64, error) {
	doc, err := decode(name, data)
	if err != nil {
		return nil, nil, err
	}
	exps := list(doc, "experiments")
	if len(exps) == 0 {
		return nil, nil, fmt.Errorf("%s: no experiments: not a perf_analyzer profile export", name)
	}
	if len(exps) > 1 {
		return nil, nil, fmt.Errorf("%s: %d experiments: GenAI-Perf writes one per profile export; import each run's own files", name, len(exps))
	}
	var reqs []Request
	var gaps []float64
	for i, q := range list(exps[0], "requests") {
		t0, ok := num(q, "timestamp")
		if !ok {
			return nil, nil, fmt.Errorf("%s: requests[%d]: no timestamp", name, i)
		}
		ts := list(q, "response_timestamps")
		if len(ts) == 0 {
			reqs = append(reqs, Request{})
			continue
		}
		at := make([]float64, len(ts))
		for j, v := range ts {
			x, ok := num(v)
			if !ok || x < t0 || (j > 0 && x < at[j-1]) {
				return nil, nil, fmt.Errorf("%s: requests[%d].response_timestamps[%d]: not a time after the request's and the previous response's", name, i, j)
			}
			at[j] = x
		}
		const ms = 1e6 // ns per ms
		r := Request{Success: true, TTFTms: (at[0] - t0) / ms, E2ELms: (at[len(at)-1] - t0) / ms, OutputTokens: len(at)}
		if len(at) > 1 {
			r.TPOTms = (at[len(at)-1] - at[0]) / ms / float64(len(at)-1)
			for j := 1; j < len(at); j++ {
				gaps = append(gaps, (at[j]-at[j-1])/ms)
			}
		}
		reqs = append(reqs, r)
	}
	return reqs, gaps, nil
}

// withRawExport adds the raw export's per-request data to a GenAI-Perf
// run: the records, and ITL from the pooled chunk gaps (the summary has
// no inter-chunk latency).
func (r *Run) withRawExport(name string, raw []byte) error {
	reqs, gaps, err := perfAnalyzerRequests(name, raw)
	if err != nil {
		return err
	}
	r.Requests = reqs
	if len(gaps) > 0 {
		itl := map[string]float64{}
		summarize(itl, "itl_ms", gaps)
		for id, x := range itl {
			if _, ok := r.Values[id]; !ok && !math.IsNaN(x) {
				r.Values[id] = x
			}
		}
		r.Lacks = subtract(r.Lacks, r.Values)
		r.Notes = append(r.Notes, fmt.Sprintf("%s: itl_ms computed from the %d chunk gaps of %s (one token per chunk assumed for TPOT from it)", r.Source, len(gaps), name))
	}
	return nil
}
