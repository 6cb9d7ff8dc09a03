package importers

import (
	"bytes"
	"fmt"
)

// aiperfRecords reads AIPerf's per-request export (profile_export.jsonl,
// beside profile_export_aiperf.json): one JSON object per line with the
// request's metadata (benchmark_phase, was_cancelled), its metrics as
// {"value", "unit"} and its error. Warmup and cancelled requests are not
// records of the run; a request with an error is a failed one.
func aiperfRecords(name string, data []byte) ([]Request, error) {
	var out []Request
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec, err := decode(fmt.Sprintf("%s line %d", name, i+1), line)
		if err != nil {
			return nil, err
		}
		if phase := str(rec, "metadata", "benchmark_phase"); phase != "" && phase != "profiling" {
			continue
		}
		if c, _ := get(rec, "metadata", "was_cancelled").(bool); c {
			continue
		}
		if e := get(rec, "error"); e != nil {
			out = append(out, Request{})
			continue
		}
		var q Request
		q.Success = true
		for key, dst := range map[string]*float64{"time_to_first_token": &q.TTFTms, "request_latency": &q.E2ELms, "inter_token_latency": &q.TPOTms} {
			m := get(rec, "metrics", key)
			x, ok := num(m, "value")
			if !ok {
				continue
			}
			scale, err := toMillis(str(m, "unit"))
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %s: %w", name, i+1, key, err)
			}
			*dst = x * scale
		}
		q.OutputTokens, _ = count(rec, "metrics", "output_sequence_length", "value")
		q.InputTokens, _ = count(rec, "metrics", "input_sequence_length", "value")
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no profiling records", name)
	}
	return out, nil
}
