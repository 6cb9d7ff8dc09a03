package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Shape is a workload's load shape: what a perfgate workload and a
// benchmark file imported from another tool both describe. Their hashes
// cover different things (a perfgate cell hashes its expanded requests, an
// import the parameters its file records), so two runs of one benchmark,
// one native and one imported, are matched by shape instead (SameWorkload).
// Zero values mean "not recorded" except Concurrency (0: unlimited, which
// every format records).
type Shape struct {
	Dataset   string  // "random", "sharegpt", ...; "" unknown
	Seed      *uint64 // nil unknown
	InputLen  int     // mean prompt tokens; 0 unknown
	OutputLen int     // mean output tokens; 0 unknown
	Requests  int     // per trial; 0 unknown
	// Rate is the mean arrival rate in requests/s (+Inf: all at once);
	// 0 unknown.
	Rate float64
	// Burstiness is the gamma shape (1: Poisson); 0 unknown.
	Burstiness  float64
	Concurrency int
	Endpoint    string // "completions" or "chat"; "" unknown
	RampUp      string
}

// LoadShape returns s's load shape; false for kinds without one (command and
// capacity cells, and a rate chosen at run time).
func (s Spec) LoadShape() (Shape, bool) {
	switch s.Kind {
	case KindBench:
		if s.Bench == nil {
			return Shape{}, false
		}
		b := s.Bench
		return Shape{
			Dataset: b.DatasetName, Seed: b.Seed, InputLen: b.MeanInputLen, OutputLen: b.MeanOutputLen,
			Requests: b.NumPrompts, Rate: b.RequestRate, Burstiness: b.Burstiness, Concurrency: b.MaxConcurrency,
			Endpoint: EndpointAPI(b.EndpointType), RampUp: b.RampUp,
		}, true
	case KindServing, "":
		if s.Load.SaturationShare > 0 {
			return Shape{}, false
		}
		seed := s.Dataset.Seed
		sh := Shape{
			Dataset: s.Dataset.Kind, Seed: &seed, InputLen: s.Dataset.InputTokens + s.Dataset.PrefixTokens,
			OutputLen: s.Dataset.OutputTokens, Requests: s.Load.Requests, Rate: s.Load.Rate,
			Burstiness: s.Load.Burstiness, Concurrency: s.Load.Concurrency, Endpoint: s.API,
		}
		if s.Load.RampUp != nil {
			sh.RampUp = s.Load.RampUp.Strategy
			sh.Rate = math.Inf(1) // as vLLM records a ramp
		}
		return sh, true
	}
	return Shape{}, false
}

// EndpointAPI maps a benchmark tool's endpoint or backend name to
// perfgate's API: "chat" for anything naming chat completions,
// "completions" for the text completions backends; "" when unknown.
func EndpointAPI(name string) string {
	n := strings.ToLower(name)
	switch {
	case n == "":
		return ""
	case strings.Contains(n, "chat"):
		return "chat"
	case n == "openai" || n == "vllm" || strings.Contains(n, "completion") || n == "text_completions":
		return "completions"
	}
	return ""
}

// CompareShapes lists the fields a and b both record and that differ
// ("requests 200 -> 100"), and those only one of them records. Mean
// lengths are equal within 1 % or 2 tokens: a drawn dataset's mean moves
// by a few tokens between tools that draw it.
func CompareShapes(a, b Shape) (differ, oneSided []string) {
	str := func(name, x, y string) {
		switch {
		case x == "" && y == "":
		case x == "" || y == "":
			oneSided = append(oneSided, name)
		case x != y:
			differ = append(differ, fmt.Sprintf("%s %s -> %s", name, x, y))
		}
	}
	num := func(name string, x, y float64, near bool) {
		switch {
		case x == 0 && y == 0:
		case x == 0 || y == 0:
			oneSided = append(oneSided, name)
		case near && math.Abs(x-y) <= math.Max(2, 0.01*math.Max(x, y)):
		case x != y:
			differ = append(differ, fmt.Sprintf("%s %s -> %s", name, FormatRate(x), FormatRate(y)))
		}
	}
	str("dataset", a.Dataset, b.Dataset)
	switch {
	case a.Seed == nil && b.Seed == nil:
	case a.Seed == nil || b.Seed == nil:
		oneSided = append(oneSided, "seed")
	case *a.Seed != *b.Seed:
		differ = append(differ, fmt.Sprintf("seed %d -> %d", *a.Seed, *b.Seed))
	}
	num("input_len", float64(a.InputLen), float64(b.InputLen), true)
	num("output_len", float64(a.OutputLen), float64(b.OutputLen), true)
	num("requests", float64(a.Requests), float64(b.Requests), false)
	num("rate", a.Rate, b.Rate, false)
	num("burstiness", a.Burstiness, b.Burstiness, false)
	if a.Concurrency != b.Concurrency {
		differ = append(differ, fmt.Sprintf("concurrency %s -> %s", conc(a.Concurrency), conc(b.Concurrency)))
	}
	str("endpoint", a.Endpoint, b.Endpoint)
	str("ramp_up", a.RampUp, b.RampUp)
	return differ, oneSided
}

func conc(n int) string {
	if n == 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}

// SameWorkload decides whether two cells with different hashes ran the
// same workload. An imported cell (KindBench) matches any cell whose load
// shape agrees on every field both record, provided both record the
// lengths, the request count and the endpoint; note then says what was
// compared and what only one side records. Two native cells never match
// (their hashes cover everything); why lists the spec fields that differ,
// in place of two hashes.
func SameWorkload(a, b Workload) (same bool, why string, note string) {
	sa, errA := a.ParseSpec()
	sb, errB := b.ParseSpec()
	if errA != nil || errB != nil {
		return false, "", ""
	}
	if sa.Kind == KindBench || sb.Kind == KindBench {
		sha, okA := sa.LoadShape()
		shb, okB := sb.LoadShape()
		if !okA || !okB {
			return false, fmt.Sprintf("a %s cell against a %s cell", kindName(sa.Kind), kindName(sb.Kind)), ""
		}
		differ, oneSided := CompareShapes(sha, shb)
		if len(differ) > 0 {
			return false, strings.Join(differ, ", "), ""
		}
		var missing []string
		for _, f := range []string{"input_len", "output_len", "requests", "endpoint"} {
			for _, o := range oneSided {
				if o == f {
					missing = append(missing, f)
				}
			}
		}
		if sha.InputLen == 0 && shb.InputLen == 0 {
			missing = append(missing, "input_len")
		}
		if len(missing) > 0 {
			return false, "the load shape cannot be matched: " + strings.Join(missing, ", ") + " recorded on one side only", ""
		}
		note = "matched by load shape (an imported cell's hash covers what its file records)"
		if len(oneSided) > 0 {
			note += "; recorded on one side only, not compared: " + strings.Join(oneSided, ", ")
		}
		return true, "", note
	}
	return false, specDiff(a.Spec, b.Spec), ""
}

func kindName(k string) string {
	if k == "" {
		return KindServing
	}
	return k
}

// specDiff lists the leaves of two spec JSON documents that differ
// ("dataset.input_tokens 512 -> 1024"), at most eight; "" when the specs
// are equal or unreadable (the hashes then differ in the expanded
// requests only).
func specDiff(a, b json.RawMessage) string {
	if len(a) == 0 || len(b) == 0 || bytes.Equal(a, b) {
		return ""
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return ""
	}
	fa, fb := map[string]string{}, map[string]string{}
	flatten("", va, fa)
	flatten("", vb, fb)
	var out []string
	for _, k := range keyUnion(fa, fb) {
		if k == "name" || k == "cell" || k == "description" {
			continue
		}
		x, okx := fa[k]
		y, oky := fb[k]
		switch {
		case !okx:
			out = append(out, fmt.Sprintf("%s added (%s)", k, y))
		case !oky:
			out = append(out, fmt.Sprintf("%s removed (was %s)", k, x))
		case x != y:
			out = append(out, fmt.Sprintf("%s %s -> %s", k, x, y))
		}
	}
	sort.Strings(out)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("and %d more", len(out)-8))
	}
	return strings.Join(out, ", ")
}

func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, x, out)
		}
	default:
		b, _ := json.Marshal(t)
		out[prefix] = string(b)
	}
}
