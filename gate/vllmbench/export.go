package vllmbench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// File is one exported vLLM result file.
type File struct {
	Name string // base name, safe for any file system
	Data []byte
}

// loadShape is the load description exported files carry, read from the
// result's spec (result.Spec.Shape): vLLM's own parameters for an imported
// result, the workload's load block for a perfgate run.
type loadShape struct {
	numPrompts  int
	rate        float64 // +Inf: all at once
	burstiness  float64 // +Inf: constant spacing
	concurrency int     // 0: unlimited
	endpoint    string
	ramp        *result.RampUp // nil: a fixed rate
}

// shapeOf reads the load shape of r. A spec that cannot be read, or a
// command cell's, leaves vLLM's defaults (all at once, Poisson).
func shapeOf(r *result.Result) loadShape {
	s := loadShape{rate: math.Inf(1), burstiness: 1}
	spec, err := r.Workload.ParseSpec()
	if err != nil {
		return s
	}
	l, ok := spec.Shape()
	// A rate written as a share of saturation ran at the absolute rate the
	// result recorded.
	if spec.Kind == result.KindServing && spec.Load.SaturationShare > 0 && r.Saturation != nil {
		l, ok = spec.Load, true
		l.Rate = r.Saturation.RateRPS
	}
	if !ok {
		return s
	}
	if l.Requests > 0 {
		s.numPrompts = l.Requests
	}
	if l.Rate > 0 {
		s.rate = l.Rate
	}
	if l.Burstiness > 0 {
		s.burstiness = l.Burstiness
	}
	if l.Concurrency > 0 {
		s.concurrency = l.Concurrency
	}
	s.ramp = l.RampUp
	switch {
	case spec.Bench != nil:
		s.endpoint = spec.Bench.EndpointType
	case spec.API == "completions":
		s.endpoint = "openai" // vLLM's name for /v1/completions
	case spec.API == "chat":
		s.endpoint = "openai-chat"
	}
	return s
}

// pyFloat is a float written as Python's json module writes it, Infinity
// included: vLLM's files are Python's, and `"burstiness": Infinity` (a
// constant-spacing benchmark) is how vLLM itself saves that setting.
type pyFloat float64

// Export renders each valid trial of r as a `vllm bench serve
// --save-result` file: vLLM's keys in vLLM's order and units (latencies in
// ms, duration in s), meta.<key> fingerprint entries as top-level metadata
// keys. Metrics vLLM has no key for (min/max, ITL per token, client queue)
// are not exported. Invalid trials are skipped: vLLM's format cannot say a
// trial is invalid, and a dashboard would plot it as real.
func Export(r *result.Result) (files []File, skipped []int, err error) {
	if r == nil || len(r.Trials) == 0 {
		return nil, nil, errors.New("export: the result has no trials")
	}
	shape := shapeOf(r)
	base := strings.TrimSuffix(result.FileName(r.Workload.Cell), ".json")
	for _, t := range r.Trials {
		if !t.Valid {
			skipped = append(skipped, t.Index)
			continue
		}
		data, err := exportTrial(r, t, shape)
		if err != nil {
			return nil, nil, fmt.Errorf("export trial %d: %w", t.Index, err)
		}
		files = append(files, File{Name: fmt.Sprintf("%s-trial%02d.json", base, t.Index), Data: data})
	}
	if len(files) == 0 {
		return nil, skipped, errors.New("export: the result has no valid trials")
	}
	return files, skipped, nil
}

func exportTrial(r *result.Result, t result.Trial, shape loadShape) ([]byte, error) {
	var o ordered
	fp := r.Fingerprint
	date := r.FinishedAt
	if date.IsZero() {
		date = r.StartedAt
	}
	if !date.IsZero() {
		o.add("date", date.UTC().Format(DateLayout))
	}
	backend := fp[result.KeyBenchBackend]
	if backend == "" {
		backend = "perfgate"
	}
	o.add("backend", backend)
	if ep := cmp.Or(fp[result.KeyBenchEndpoint], shape.endpoint); ep != "" {
		o.add("endpoint_type", ep)
	}
	o.add("label", nilIfEmpty(fp[result.KeyBenchLabel]))
	o.add("model_id", r.Server.Model)
	// vLLM's tokenizer defaults to the model; an imported file without a
	// tokenizer_id keeps lacking one.
	if tok := fp[result.KeyBenchTokenizer]; tok != "" {
		o.add("tokenizer_id", tok)
	} else if r.Source != Source {
		o.add("tokenizer_id", r.Server.Model)
	}
	n := shape.numPrompts
	if n == 0 {
		n = t.Completed + t.Failed
	}
	o.add("num_prompts", n)
	if math.IsInf(shape.rate, 1) {
		o.add("request_rate", "inf")
	} else {
		o.add("request_rate", shape.rate)
	}
	o.add("burstiness", pyFloat(shape.burstiness))
	if shape.concurrency > 0 {
		o.add("max_concurrency", shape.concurrency)
	} else {
		o.add("max_concurrency", nil)
	}
	if r := shape.ramp; r != nil { // vLLM writes these only with a ramp
		o.add("ramp_up_strategy", r.Strategy)
		o.add("ramp_up_start_rps", r.StartRPS)
		o.add("ramp_up_end_rps", r.EndRPS)
	}
	for _, k := range slices.Sorted(maps.Keys(fp)) {
		if m, ok := strings.CutPrefix(k, result.MetaPrefix); ok && !knownKeys[m] {
			o.add(m, fp[k])
		}
	}
	v := t.Values
	o.add("duration", firstValue(v, "duration_s", t.DurationS))
	o.add("completed", t.Completed)
	o.add("failed", t.Failed)
	for _, k := range []string{"total_input_tokens", "total_output_tokens"} {
		if x, ok := v[k]; ok {
			o.add(k, int64(math.Round(x)))
		}
	}
	// Keys a result lacks are left out rather than written as 0, which a
	// dashboard would plot as a real measurement. request_goodput is null
	// without an SLO, as vLLM writes it without --goodput.
	o.addIf(v, "request_throughput", "request_throughput")
	if g, ok := v["request_goodput"]; ok {
		o.add("request_goodput", g)
	} else {
		o.add("request_goodput", nil)
	}
	o.addIf(v, "output_throughput", "output_throughput")
	o.addIf(v, "total_token_throughput", "total_token_throughput")
	o.addIf(v, "max_output_tokens_per_s", "max_output_tokens_per_s")
	o.addIf(v, "max_concurrent_requests", "max_concurrent_requests")
	for _, d := range distributions {
		for _, stat := range []metrics.Stat{metrics.Mean, metrics.Median, metrics.Std} {
			if x, ok := v[metrics.ID{Base: d.dist, Stat: stat}.String()]; ok {
				o.add(stat.String()+"_"+d.vllm+"_ms", x)
			}
		}
		for _, p := range percentiles(v, d.dist) {
			o.add(p.stat.String()+"_"+d.vllm+"_ms", p.value)
		}
	}
	return o.marshal()
}

type pct struct {
	stat  metrics.Stat
	p     float64
	value float64
}

// percentiles returns the pNN stats of dist present in v, ascending.
func percentiles(v map[string]float64, dist string) []pct {
	var out []pct
	for id, x := range v {
		pid, ok := metrics.ParseID(id)
		if !ok || pid.Base != dist {
			continue
		}
		if p, ok := pid.Stat.Percentile(); ok {
			out = append(out, pct{pid.Stat, p, x})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].p < out[j].p })
	return out
}

func firstValue(v map[string]float64, id string, fallback float64) float64 {
	if x, ok := v[id]; ok {
		return x
	}
	return fallback
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ordered is a JSON object that keeps insertion order, so exported files
// read like vLLM's (Python dicts keep insertion order).
type ordered struct {
	keys []string
	vals []any
}

func (o *ordered) add(k string, v any) {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// addIf adds key with v[id] when the result has the metric.
func (o *ordered) addIf(v map[string]float64, key, id string) {
	if x, ok := v[id]; ok {
		o.add(key, x)
	}
}

func (o *ordered) marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range o.keys {
		kb, _ := json.Marshal(k)
		vb, err := marshalValue(o.vals[i])
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", k, err)
		}
		b.WriteString("  ")
		b.Write(kb)
		b.WriteString(": ")
		b.Write(vb)
		if i < len(o.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// marshalValue is json.Marshal, except that a pyFloat may be infinite
// (Python's Infinity and -Infinity; NaN stays an error, since no setting
// is NaN).
func marshalValue(v any) ([]byte, error) {
	if f, ok := v.(pyFloat); ok {
		switch {
		case math.IsInf(float64(f), 1):
			return []byte("Infinity"), nil
		case math.IsInf(float64(f), -1):
			return []byte("-Infinity"), nil
		}
		v = float64(f)
	}
	return json.Marshal(v)
}

// WriteDir writes files into dir atomically, creating it if needed, and
// returns the paths written.
func WriteDir(dir string, files []File) ([]string, error) {
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := result.WriteFileAtomic(p, f.Data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
