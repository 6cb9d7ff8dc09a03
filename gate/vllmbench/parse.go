package vllmbench

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// DateLayout is the Go layout of the "date" key (Python "%Y%m%d-%H%M%S").
const DateLayout = "20060102-150405"

// Bench is one parsed `vllm bench serve --save-result` file.
type Bench struct {
	// Name is the file name, used in errors and notes.
	Name string
	// Date is when vLLM saved the file (the end of the benchmark), in
	// vLLM's local time read as UTC; zero when absent.
	Date      time.Time
	Model     string
	Backend   string
	Endpoint  string // endpoint_type
	Label     string
	Tokenizer string
	// NumPrompts is 0 when absent; Rate is +Inf for "inf"; Burstiness
	// defaults to 1 (Poisson); MaxConcurrency is 0 when unlimited (null).
	NumPrompts     int
	Rate           float64
	Burstiness     float64
	MaxConcurrency int
	// RampUp describes a ramp-up load ("linear 1->10"), empty without one.
	RampUp string
	// Values maps metric ids to the file's values, finite and non-negative.
	Values    map[string]float64
	Completed int
	Failed    int
	// Errors counts the non-empty entries of the "errors" array (files
	// saved with --save-detailed or by old versions); FirstError is the
	// first of them.
	Errors     int
	FirstError string
	// Meta holds the top-level string keys vLLM does not define: what
	// `--metadata k=v` added.
	Meta map[string]string
	// Notes are remarks about what was dropped or inferred.
	Notes []string
}

// Parse decodes one vLLM result file. name is used in errors.
func Parse(name string, data []byte) (*Bench, error) {
	obj, err := decodePython(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, ok := obj["completed"]; !ok {
		return nil, fmt.Errorf("%s: not a `vllm bench serve --save-result` file (no \"completed\" key)", name)
	}
	b := &Bench{Name: name, Values: map[string]float64{}, Meta: map[string]string{}, Burstiness: 1, Rate: math.Inf(1)}
	p := parser{b: b, obj: obj}

	b.Model = p.str("model_id")
	b.Backend = p.str("backend")
	b.Endpoint = p.str("endpoint_type")
	b.Label = p.str("label")
	b.Tokenizer = p.str("tokenizer_id")
	if d := p.str("date"); d != "" {
		t, err := time.Parse(DateLayout, d)
		if err != nil {
			return nil, fmt.Errorf("%s: \"date\" %q is not in vLLM's %%Y%%m%%d-%%H%%M%%S form", name, d)
		}
		b.Date = t
	}
	b.NumPrompts = p.count("num_prompts")
	if v, ok := p.num("request_rate"); ok {
		if v <= 0 || math.IsNaN(v) {
			return nil, fmt.Errorf("%s: \"request_rate\" %v is not a positive rate", name, v)
		}
		b.Rate = v
	}
	if v, ok := p.num("burstiness"); ok && v > 0 && !math.IsNaN(v) {
		b.Burstiness = v
	}
	b.MaxConcurrency = p.count("max_concurrency")
	if s := p.str("ramp_up_strategy"); s != "" {
		lo, _ := p.num("ramp_up_start_rps")
		hi, _ := p.num("ramp_up_end_rps")
		b.RampUp = fmt.Sprintf("%s %g->%g", s, lo, hi)
	}

	for _, s := range scalarKeys {
		if v, ok := p.metric(s.key); ok {
			b.Values[s.id] = v
		}
	}
	for key := range obj {
		m := latencyKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		id := distID(m[2], m[1])
		if _, known := metrics.Lookup(id); !known {
			b.note("%s: key %q is not a known statistic; left out", name, key)
			continue
		}
		if v, ok := p.metric(key); ok {
			b.Values[id] = v
		}
	}
	// numpy's median is its 50th percentile (linear interpolation), so a
	// file with one of them has both; gates default to either name.
	for _, d := range distributions {
		med, p50 := d.dist+".median", d.dist+".p50"
		if v, ok := b.Values[med]; ok {
			if _, has := b.Values[p50]; !has {
				b.Values[p50] = v
			}
		} else if v, ok := b.Values[p50]; ok {
			b.Values[med] = v
		}
	}

	b.Completed = int(b.Values["completed"])
	b.countErrors(obj["errors"])
	if _, ok := b.Values["failed"]; !ok {
		// Files from before vLLM recorded "failed": every prompt that did
		// not complete failed.
		if b.NumPrompts > b.Completed {
			b.Values["failed"] = float64(b.NumPrompts - b.Completed)
			b.note("%s: no \"failed\" key; inferred %d failed from num_prompts - completed", name, b.NumPrompts-b.Completed)
		} else {
			b.Values["failed"] = 0
		}
	}
	b.Failed = int(b.Values["failed"])
	if _, ok := b.Values["duration_s"]; !ok {
		return nil, fmt.Errorf("%s: no \"duration\" key", name)
	}

	keys := slices.Sorted(maps.Keys(obj))
	for _, k := range keys {
		if knownKeys[k] || latencyKey.MatchString(k) {
			continue
		}
		if s, ok := obj[k].(string); ok {
			b.Meta[k] = s
		}
	}
	return b, nil
}

func (b *Bench) note(format string, args ...any) {
	b.Notes = append(b.Notes, fmt.Sprintf(format, args...))
}

// countErrors counts the non-empty strings of vLLM's per-request "errors".
func (b *Bench) countErrors(v any) {
	list, ok := v.([]any)
	if !ok {
		return
	}
	for _, e := range list {
		if s, ok := e.(string); ok && s != "" {
			if b.Errors == 0 {
				b.FirstError = truncate(s, 200)
			}
			b.Errors++
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		n--
	}
	return s[:n] + "..."
}

// distID builds the metric id for vLLM metric m ("ttft") and stat
// ("mean", "p99"); "" when either is not one perfgate knows.
func distID(m, stat string) string {
	st, ok := metrics.ParseStat(stat)
	if !ok {
		return ""
	}
	for _, d := range distributions {
		if d.vllm == m {
			return metrics.ID{Base: d.dist, Stat: st}.String()
		}
	}
	return ""
}

// parser reads typed values from a decoded file, recording notes.
type parser struct {
	b   *Bench
	obj map[string]any
}

func (p parser) str(key string) string {
	s, _ := p.obj[key].(string)
	return s
}

// num returns a number (or "inf"-like string); ok is false when the key is
// absent, null or not a number.
func (p parser) num(key string) (float64, bool) {
	v, present := p.obj[key]
	if !present || v == nil {
		return 0, false
	}
	return number(v)
}

// count returns a non-negative integer field, 0 when absent or null.
func (p parser) count(key string) int {
	v, ok := p.num(key)
	if !ok || v < 0 || v > math.MaxInt32 || math.IsNaN(v) {
		return 0
	}
	return int(math.Round(v))
}

// metric returns a metric value. Null means "not measured" (vLLM writes
// request_goodput: null without --goodput); NaN, infinities, negative
// numbers and values beyond result.MaxValue cannot enter a result file and
// are dropped with a note (a required key dropped so is then reported
// missing), so whatever Parse accepts also imports.
func (p parser) metric(key string) (float64, bool) {
	v, present := p.obj[key]
	if !present || v == nil {
		return 0, false
	}
	f, ok := number(v)
	if !ok {
		p.b.note("%s: key %q is %s, not a number; left out", p.b.Name, key, describe(v))
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > result.MaxValue {
		p.b.note("%s: key %q is %v; left out", p.b.Name, key, f)
		return 0, false
	}
	return f, true
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(truncate(x, 40))
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Number:
		return string(x)
	}
	return fmt.Sprintf("%T", v)
}
