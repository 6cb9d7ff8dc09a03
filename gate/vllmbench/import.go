package vllmbench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// Source is the result's Source for imported files.
const Source = "vllm-bench import"

// Options control an import.
type Options struct {
	// Cell names the imported cell (required; the CLI defaults it to the
	// output file's stem).
	Cell string
	// GPUs, when positive, is the GPU count throughput is normalised by.
	GPUs int
	// ToolVersion is recorded in the result's tool block.
	ToolVersion string
}

// identity is the spec of an imported cell: what makes two imported cells
// comparable (the benchmark's load parameters and mean request lengths,
// never machine or metadata), encoded by result.Spec. Its hash is the
// cell's workload hash, so results of different benchmarks never compare
// as one workload: an identity that cannot be encoded is an error, never
// the hash of nothing.
func identity(b result.Bench) (spec []byte, hash string, err error) {
	spec, err = json.Marshal(result.Spec{Kind: result.KindBench, Bench: &b})
	if err != nil {
		return nil, "", fmt.Errorf("import: workload identity: %w", err)
	}
	sum := sha256.Sum256(spec)
	return spec, hex.EncodeToString(sum[:]), nil
}

// ImportFiles reads and imports the files at paths, one trial each.
func ImportFiles(paths []string, opts Options) (*result.Result, error) {
	benches := make([]*Bench, 0, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		b, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		benches = append(benches, b)
	}
	return Import(benches, opts)
}

// Import builds one result from parsed files, in the given order: one cell,
// one trial per file. The files must describe the same benchmark (same
// prompt count, rate, burstiness, concurrency, endpoint, model); an error
// names the first file that differs.
func Import(benches []*Bench, opts Options) (*result.Result, error) {
	if len(benches) == 0 {
		return nil, errors.New("no vllm-bench files to import")
	}
	if opts.Cell == "" {
		return nil, errors.New("import: a cell name is required")
	}
	first := benches[0]
	var notes []string
	var inTok, outTok, done float64
	for _, b := range benches {
		if err := sameBenchmark(first, b); err != nil {
			return nil, err
		}
		inTok += b.Values["total_input_tokens"]
		outTok += b.Values["total_output_tokens"]
		done += float64(b.Completed)
		notes = append(notes, b.Notes...)
	}
	id := result.Bench{
		NumPrompts:     first.NumPrompts,
		RequestRate:    first.Rate,
		Burstiness:     first.Burstiness,
		MaxConcurrency: first.MaxConcurrency,
		EndpointType:   first.Endpoint,
		RampUp:         first.RampUp,
	}
	if done > 0 {
		id.MeanInputLen = int(math.Round(inTok / done))
		id.MeanOutputLen = int(math.Round(outTok / done))
	}
	spec, hash, err := identity(id)
	if err != nil {
		return nil, err
	}

	r := &result.Result{
		Schema:      result.Schema,
		Tool:        result.Tool{Name: "perfgate", Version: opts.ToolVersion},
		Workload:    result.Workload{Name: opts.Cell, Cell: opts.Cell, Hash: hash, Spec: spec},
		Server:      result.Server{Model: first.Model, GPUs: max(opts.GPUs, 0)},
		Fingerprint: fingerprint(benches, &notes),
		Complete:    true,
		Source:      Source,
	}
	for i, b := range benches {
		r.Trials = append(r.Trials, trial(i, b, opts.GPUs))
		if !b.Date.IsZero() {
			start := b.Date.Add(-time.Duration(b.Values["duration_s"] * float64(time.Second)))
			if r.StartedAt.IsZero() || start.Before(r.StartedAt) {
				r.StartedAt = start
			}
			if b.Date.After(r.FinishedAt) {
				r.FinishedAt = b.Date
			}
		}
	}
	r.Notes = notes
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("import: %w", err) // a bug: Parse keeps values valid
	}
	return r, nil
}

// sameBenchmark reports how b's load parameters differ from first's.
func sameBenchmark(first, b *Bench) error {
	diff := func(field string, x, y any) error {
		return fmt.Errorf("%s and %s are different benchmarks: %s %v vs %v (import each benchmark into its own cell)",
			first.Name, b.Name, field, x, y)
	}
	switch {
	case first.NumPrompts != b.NumPrompts:
		return diff("num_prompts", first.NumPrompts, b.NumPrompts)
	case result.FormatRate(first.Rate) != result.FormatRate(b.Rate):
		return diff("request_rate", result.FormatRate(first.Rate), result.FormatRate(b.Rate))
	case first.Burstiness != b.Burstiness:
		return diff("burstiness", first.Burstiness, b.Burstiness)
	case first.MaxConcurrency != b.MaxConcurrency:
		return diff("max_concurrency", first.MaxConcurrency, b.MaxConcurrency)
	case first.Endpoint != b.Endpoint:
		return diff("endpoint_type", first.Endpoint, b.Endpoint)
	case first.RampUp != b.RampUp:
		return diff("ramp-up", first.RampUp, b.RampUp)
	case first.Model != b.Model:
		return diff("model_id", first.Model, b.Model)
	}
	return nil
}

// fingerprint records the model (a hard key: results of different models
// never compare), vLLM's descriptive keys and --metadata as meta.<key>.
// Metadata that differs between the files keeps the first file's value and
// adds a note.
func fingerprint(benches []*Bench, notes *[]string) map[string]string {
	fp := map[string]string{}
	first := benches[0]
	set := func(k, v string) {
		if v != "" {
			fp[k] = v
		}
	}
	set(result.KeyServerModel, first.Model)
	set(result.KeyBenchBackend, first.Backend)
	set(result.KeyBenchEndpoint, first.Endpoint)
	set(result.KeyBenchLabel, first.Label)
	set(result.KeyBenchTokenizer, first.Tokenizer)
	for k, v := range first.Meta {
		fp[result.MetaPrefix+k] = v
	}
	for _, b := range benches[1:] {
		keys := map[string]bool{}
		for k := range b.Meta {
			keys[k] = true
		}
		for k := range first.Meta {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			v, ok := b.Meta[k]
			if old, had := first.Meta[k]; ok != had || old != v {
				*notes = append(*notes, fmt.Sprintf("%s: metadata %q is %q, %s has %q; the result keeps %s's",
					b.Name, k, v, first.Name, old, first.Name))
			}
		}
	}
	if len(fp) == 0 {
		return nil
	}
	return fp
}

// trial turns one file into a trial, adding the ids perfgate derives from
// vLLM's (QPM, TPM, success rate, goodput ratio, per-GPU throughput).
func trial(i int, b *Bench, gpus int) result.Trial {
	v := make(map[string]float64, len(b.Values)+8)
	for k, x := range b.Values {
		v[k] = x
	}
	metrics.DeriveRates(v, gpus)
	total := float64(b.Completed + b.Failed)
	if total > 0 {
		v["success_rate"] = float64(b.Completed) / total
		if g, ok := v["request_goodput"]; ok {
			good := math.Round(g * v["duration_s"])
			v["goodput_ratio"] = math.Min(good/total, 1)
		}
	}
	t := result.Trial{
		Index:     i,
		Valid:     b.Completed > 0,
		DurationS: v["duration_s"],
		Completed: b.Completed,
		Failed:    b.Failed,
		Values:    v,
	}
	if !t.Valid {
		t.InvalidReason = "no successful requests"
	}
	if b.Errors > 0 {
		t.Errors = map[string]int{"vllm_bench": b.Errors}
		t.ErrorSamples = map[string]string{"vllm_bench": b.FirstError}
	}
	return t
}
