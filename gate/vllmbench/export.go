package vllmbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// File is one exported vLLM result file.
type File struct {
	Name string // base name, safe for any file system
	Data []byte
}

// loadShape is the load description exported files carry. Imported results
// keep vLLM's parameters at the top of their spec (see Identity); results of
// perfgate runs keep them in the workload spec's "load" block, with "api"
// naming the endpoint.
type loadShape struct {
	numPrompts  int
	rate        string // "inf" or a number
	burstiness  float64
	concurrency int // 0: unlimited
	endpoint    string
}

// specFields is the subset of both spec layouts export reads.
type specFields struct {
	NumPrompts     any    `json:"num_prompts"`
	RequestRate    any    `json:"request_rate"`
	Burstiness     any    `json:"burstiness"`
	MaxConcurrency any    `json:"max_concurrency"`
	EndpointType   string `json:"endpoint_type"`
	API            string `json:"api"`
	Load           *struct {
		Requests    any `json:"requests"`
		Concurrency any `json:"concurrency"`
		Rate        any `json:"rate"`
		Burstiness  any `json:"burstiness"`
	} `json:"load"`
}

func shapeOf(r *result.Result) loadShape {
	s := loadShape{rate: "inf", burstiness: 1}
	var f specFields
	if len(r.Workload.Spec) == 0 || json.Unmarshal(r.Workload.Spec, &f) != nil {
		return s
	}
	if f.Load != nil {
		f.NumPrompts, f.RequestRate = f.Load.Requests, f.Load.Rate
		f.Burstiness, f.MaxConcurrency = f.Load.Burstiness, f.Load.Concurrency
	}
	num := func(v any) (float64, bool) {
		if x, ok := v.(float64); ok {
			return x, true
		}
		return number(v)
	}
	if n, ok := num(f.NumPrompts); ok && n > 0 && n < math.MaxInt32 {
		s.numPrompts = int(n)
	}
	if x, ok := num(f.RequestRate); ok && x > 0 {
		s.rate = rateString(x)
	}
	if x, ok := num(f.Burstiness); ok && x > 0 && !math.IsInf(x, 0) {
		s.burstiness = x
	}
	if x, ok := num(f.MaxConcurrency); ok && x > 0 && x < math.MaxInt32 {
		s.concurrency = int(x)
	}
	s.endpoint = f.EndpointType
	switch {
	case s.endpoint != "":
	case f.API == "completions":
		s.endpoint = "openai" // vLLM's name for /v1/completions
	case f.API == "chat":
		s.endpoint = "openai-chat"
	}
	return s
}

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
	backend := fp["bench.backend"]
	if backend == "" {
		backend = "perfgate"
	}
	o.add("backend", backend)
	if ep := firstNonEmpty(fp["bench.endpoint_type"], shape.endpoint); ep != "" {
		o.add("endpoint_type", ep)
	}
	o.add("label", nilIfEmpty(fp["bench.label"]))
	o.add("model_id", r.Server.Model)
	// vLLM's tokenizer defaults to the model; an imported file without a
	// tokenizer_id keeps lacking one.
	if tok := fp["bench.tokenizer_id"]; tok != "" {
		o.add("tokenizer_id", tok)
	} else if r.Source != Source {
		o.add("tokenizer_id", r.Server.Model)
	}
	n := shape.numPrompts
	if n == 0 {
		n = t.Completed + t.Failed
	}
	o.add("num_prompts", n)
	if shape.rate == "inf" {
		o.add("request_rate", "inf")
	} else {
		f, _ := strconv.ParseFloat(shape.rate, 64)
		o.add("request_rate", f)
	}
	o.add("burstiness", shape.burstiness)
	if shape.concurrency > 0 {
		o.add("max_concurrency", shape.concurrency)
	} else {
		o.add("max_concurrency", nil)
	}
	for _, k := range sortedKeys(fp) {
		if m, ok := strings.CutPrefix(k, "meta."); ok && !knownKeys[m] {
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
		for _, stat := range []string{"mean", "median", "std"} {
			if x, ok := v[metrics.ID(d.dist, stat)]; ok {
				o.add(stat+"_"+d.vllm+"_ms", x)
			}
		}
		for _, p := range percentiles(v, d.dist) {
			o.add(p.stat+"_"+d.vllm+"_ms", p.value)
		}
	}
	return o.marshal()
}

type pct struct {
	stat  string
	p     float64
	value float64
}

// percentiles returns the pNN stats of dist present in v, ascending.
func percentiles(v map[string]float64, dist string) []pct {
	var out []pct
	for id, x := range v {
		d, stat, ok := metrics.Split(id)
		if !ok || d != dist || !strings.HasPrefix(stat, "p") {
			continue
		}
		p, err := strconv.ParseFloat(stat[1:], 64)
		if err != nil {
			continue
		}
		out = append(out, pct{stat, p, x})
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

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
		vb, err := json.Marshal(o.vals[i])
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
