package workload

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/redact"
	"gopkg.in/yaml.v3"
)

// ownedBodyKeys are the request body keys perfgate writes itself, with
// where a workload sets each instead. extra_body may not replace them:
// a second "max_tokens" would make the request disagree with the
// manifest (and its hash), and stream/stream_options are what the
// measurement reads.
var ownedBodyKeys = map[string]string{
	"model":                 "the top-level model key",
	"prompt":                "the dataset",
	"messages":              "the dataset and api: chat",
	"max_tokens":            "the dataset's output_tokens",
	"max_completion_tokens": "the dataset's output_tokens",
	"stream":                "nothing: perfgate always streams",
	"stream_options":        "nothing: perfgate needs the usage it asks for",
	"temperature":           "sampling.temperature",
	"top_p":                 "sampling.top_p",
	"top_k":                 "sampling.top_k",
	"min_p":                 "sampling.min_p",
	"seed":                  "sampling.seed",
	"ignore_eos":            "sampling.ignore_eos",
	"min_tokens":            "sampling.min_tokens",
	"frequency_penalty":     "sampling.frequency_penalty",
	"presence_penalty":      "sampling.presence_penalty",
	"repetition_penalty":    "sampling.repetition_penalty",
	"cache_salt":            "the --cache-salt flag of run and gate",
	"n":                     "nothing: perfgate measures one choice per request",
	"best_of":               "nothing: perfgate measures one choice per request",
}

// Bounds of extra_body: it is sent with every request, so a runaway
// value is refused rather than multiplied by the request count.
const (
	maxExtraBodyBytes = 64 << 10
	maxExtraBodyDepth = 16
)

// extraBody decodes extra_body (vllm bench serve --extra-body) into its
// canonical JSON: compact, keys sorted, so the same mapping written in
// another order or style hashes the same.
func (d *decoder) extraBody(n *yaml.Node, f *File) {
	if !d.isMapping(n, "extra_body") {
		return
	}
	n0 := len(d.errs)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if where, owned := ownedBodyKeys[k.Value]; owned && k.Kind == yaml.ScalarNode {
			d.errorf(k.Line, "extra_body: %s is set by perfgate (set it with %s)", k.Value, where)
		}
	}
	v := d.jsonValue(n, "extra_body", 0)
	if len(d.errs) > n0 {
		return
	}
	obj := v.(map[string]any)
	if len(obj) == 0 {
		d.errorf(n.Line, "extra_body: an empty mapping adds nothing; leave the key out")
		return
	}
	if paths := redact.JSONCredentials(obj, "extra_body"); len(paths) > 0 {
		d.errorf(n.Line, "%s", extraCredentialError(paths))
		return
	}
	b, err := json.Marshal(obj)
	if err != nil { // every value was checked finite above
		d.errorf(n.Line, "extra_body: %v", err)
		return
	}
	if len(b) > maxExtraBodyBytes {
		d.errorf(n.Line, "extra_body encodes to %d bytes; the limit is %d", len(b), maxExtraBodyBytes)
		return
	}
	f.ExtraBody = b
}

// jsonValue converts a YAML node to the JSON value it spells: mappings
// with string keys, lists, strings, finite numbers, booleans and null.
func (d *decoder) jsonValue(n *yaml.Node, path string, depth int) any {
	if depth > maxExtraBodyDepth {
		d.errorf(n.Line, "%s: nested deeper than %d levels", path, maxExtraBodyDepth)
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := map[string]any{}
		d.pairs(n, path, func(k, v *yaml.Node) { out[k.Value] = d.jsonValue(v, path+"."+k.Value, depth+1) })
		return out
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			out[i] = d.jsonValue(c, path+"["+strconv.Itoa(i)+"]", depth+1)
		}
		return out
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil
		case "!!bool":
			return d.boolean(n, path)
		case "!!int", "!!float":
			// json.Number keeps the number as written (1e3, 10); only its
			// spelling must be valid JSON and finite.
			v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			lit := json.Number(strings.ReplaceAll(n.Value, "_", ""))
			if err != nil || !json.Valid([]byte(lit)) || v != v || v > 1e308 || v < -1e308 {
				d.errorf(n.Line, "%s: %s is not a finite JSON number (write it as JSON does, or quote it to send a string)", path, n.Value)
				return nil
			}
			return lit
		case "!!str":
			return n.Value
		}
		d.errorf(n.Line, "%s: unsupported YAML value %s (tag %s)", path, describe(n), n.ShortTag())
	}
	return nil
}

// headerName is an HTTP header field name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")

// ownedHeaders are the headers perfgate sets itself. Authorization comes
// from the API key (PERFGATE_API_KEY), which perfgate keeps out of every
// file it writes; a second way to send it would be a second way to leak it.
var ownedHeaders = map[string]string{
	"authorization":     "set the API key with PERFGATE_API_KEY (perfgate sends it as a Bearer token and keeps it out of results)",
	"content-type":      "perfgate sends JSON",
	"accept":            "perfgate reads an event stream",
	"accept-encoding":   "perfgate reads the stream uncompressed so chunk arrival times are the server's",
	"x-request-id":      "perfgate numbers every request",
	"content-length":    "set by the HTTP client",
	"host":              "comes from the server URL",
	"connection":        "perfgate manages its connections",
	"transfer-encoding": "set by the HTTP client",
}

// headers decodes headers (vllm bench serve --header KEY=VALUE): a
// mapping of header name to a literal value, or to {env: NAME} for a
// value read from the environment at run time. A name that says it holds
// a credential (X-Api-Key, X-Auth-Token) must use {env: ...}: a literal
// secret would sit in the workload file, the spec of every result and the
// manifest hash.
func (d *decoder) headers(n *yaml.Node, f *File) {
	if !d.isMapping(n, "headers") {
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(k.Line, "headers: names must be plain strings")
			continue
		}
		name := k.Value
		if !headerName.MatchString(name) {
			d.errorf(k.Line, "headers: %q is not a valid HTTP header name", name)
			continue
		}
		lower := strings.ToLower(name)
		if prev, dup := seen[lower]; dup {
			d.errorf(k.Line, "headers: %s appears twice (first at line %d; names are case-insensitive)", name, prev)
			continue
		}
		seen[lower] = k.Line
		if why, owned := ownedHeaders[lower]; owned {
			d.errorf(k.Line, "headers: %s is set by perfgate: %s", name, why)
			continue
		}
		h := Header{Name: name}
		if v.Kind == yaml.MappingNode {
			for _, fl := range d.mapping(v, "headers."+name, "env") {
				h.Env = d.str(fl.value, "headers."+name+".env")
				if h.Env != "" && !envName.MatchString(h.Env) {
					d.errorf(fl.value.Line, "headers.%s.env: %q is not an environment variable name", name, h.Env)
				}
			}
			if h.Env == "" {
				d.errorf(v.Line, "headers.%s: write a value or {env: VARIABLE} naming a variable (an empty name reads nothing)", name)
			}
		} else {
			h.Value = d.text(v, "headers."+name)
			switch {
			case redact.Name(name):
				// The value is not quoted: it is the secret.
				d.errorf(v.Line, "headers.%s is named like a credential, so its value must come from the environment: write {env: VARIABLE} to keep it out of the workload file and results", name)
			case strings.ContainsAny(h.Value, "\r\n\x00"):
				d.errorf(v.Line, "headers.%s: the value holds a line break or NUL", name)
			case strings.IndexFunc(h.Value, controlChar) >= 0:
				// net/http refuses such a value on every request, so the run
				// would only wait out the server's ready timeout.
				d.errorf(v.Line, "headers.%s: the value holds a control character (%q): HTTP forbids it in a header", name, h.Value[strings.IndexFunc(h.Value, controlChar)])
			case redact.Text(h.Value) != h.Value:
				d.errorf(v.Line, "headers.%s: the value looks like a credential, so it must come from the environment: write {env: VARIABLE} instead", name)
			}
		}
		f.Headers = append(f.Headers, h)
	}
	sort.SliceStable(f.Headers, func(i, j int) bool {
		return strings.ToLower(f.Headers[i].Name) < strings.ToLower(f.Headers[j].Name)
	})
}

// controlChar is a byte HTTP forbids in a header value (RFC 9110 field
// values allow HTAB, visible characters and obs-text, never other
// controls or DEL).
func controlChar(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }

// metricPercentiles decodes metric_percentiles (vllm bench serve
// --metric-percentiles 25,50,75): the percentiles every distribution
// records besides the fixed ones, which gate rules may then name.
func (d *decoder) metricPercentiles(n *yaml.Node, f *File) {
	seen := map[metrics.Stat]int{}
	for _, item := range d.list(n, "metric_percentiles") {
		p := d.number(item, "metric_percentiles", "in (0, 100) (min and max are recorded anyway)", func(x float64) bool { return x > 0 && x < 100 })
		if p == 0 {
			continue
		}
		st := metrics.Pct(p)
		if prev, dup := seen[st]; dup {
			d.errorf(item.Line, "metric_percentiles: %s appears twice (first at line %d)", item.Value, prev)
			continue
		}
		seen[st] = item.Line
		f.MetricPercentiles = append(f.MetricPercentiles, p)
	}
}

// rampUp decodes load.ramp_up (vllm bench serve --ramp-up-strategy,
// --ramp-up-start-rps, --ramp-up-end-rps) with vLLM's checks, except that
// the start rate must be positive for the linear ramp too: vLLM asserts
// that every request's rate is positive, so a linear ramp from 0 fails
// there, after the benchmark has started.
func (d *decoder) rampUp(n *yaml.Node) *RampUp {
	r := &RampUp{}
	have := map[string]bool{}
	rps := func(x float64) bool { return x >= MinRate && x <= MaxRate }
	want := "in [" + ftoa(MinRate) + ", " + ftoa(MaxRate) + "] requests/s"
	for _, fl := range d.mapping(n, "load.ramp_up", "strategy", "start_rps", "end_rps") {
		have[fl.key] = true
		switch fl.key {
		case "strategy":
			n0 := len(d.errs)
			r.Strategy = d.str(fl.value, "load.ramp_up.strategy")
			if len(d.errs) == n0 && r.Strategy != RampLinear && r.Strategy != RampExponential {
				d.errorf(fl.value.Line, "load.ramp_up.strategy must be linear or exponential, got %q", r.Strategy)
			}
		case "start_rps":
			r.StartRPS = d.number(fl.value, "load.ramp_up.start_rps", want, rps)
		case "end_rps":
			r.EndRPS = d.number(fl.value, "load.ramp_up.end_rps", want, rps)
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for _, k := range []string{"strategy", "start_rps", "end_rps"} {
		if !have[k] {
			d.errorf(n.Line, "load.ramp_up: missing required key %s", k)
		}
	}
	if r.StartRPS > 0 && r.EndRPS > 0 && r.StartRPS > r.EndRPS {
		d.errorf(n.Line, "load.ramp_up: start_rps (%s) must not exceed end_rps (%s)", ftoa(r.StartRPS), ftoa(r.EndRPS))
	}
	return r
}

// traceKey decodes the dataset keys of kind trace (vLLM's timed_trace
// options beside each).
func (d *decoder) traceKey(fl field, ds *Dataset) {
	v := fl.value
	switch fl.key {
	case "format":
		n0 := len(d.errs)
		ds.Format = d.str(v, "dataset.format")
		if len(d.errs) == n0 && ds.Format != TraceJSONL && ds.Format != TraceCSV {
			d.errorf(v.Line, "dataset.format must be jsonl or csv, got %q", ds.Format)
		}
	case "time_scale": // --timed-trace-sec-multiplier
		ds.TimeScale = d.number(v, "dataset.time_scale", "in (0, 1000000] (seconds per timestamp unit)", func(x float64) bool { return x > 0 && x <= 1e6 })
	case "hash_block_tokens": // --timed-trace-chunk-hash-size
		ds.HashBlockTokens = d.integer(v, "dataset.hash_block_tokens", 1, 1000000)
	case "max_duration":
		ds.MaxDuration = d.duration(v, "dataset.max_duration")
	case "fields": // --timed-trace-label-timestamp, -input-length, ...
		d.traceFields(v, ds)
	}
}

// traceFields decodes dataset.fields: the key (jsonl) or column (csv)
// that holds each role, for traces that name them otherwise.
func (d *decoder) traceFields(n *yaml.Node, ds *Dataset) {
	ds.Fields = map[string]string{}
	roles := map[string]string{}
	for _, fl := range d.mapping(n, "dataset.fields", TraceFields...) {
		n0 := len(d.errs)
		name := d.text(fl.value, "dataset.fields."+fl.key)
		switch {
		case len(d.errs) > n0:
		case strings.TrimSpace(name) == "":
			d.errorf(fl.value.Line, "dataset.fields.%s must name a key or column", fl.key)
		case roles[name] != "":
			d.errorf(fl.value.Line, "dataset.fields: %q is already the %s", name, roles[name])
		default:
			roles[name] = fl.key
			ds.Fields[fl.key] = name
		}
	}
}

// traceLoad checks the load of a trace workload: the trace's timestamps
// are the schedule, so a rate, a burstiness or a ramp would be ignored
// and is refused; a concurrency cap still applies (vLLM's
// --max-concurrency).
func (d *decoder) traceLoad(f *File) {
	for _, c := range []struct {
		line int
		key  string
	}{{f.lines.rate, "load.rate"}, {f.lines.burstiness, "load.burstiness"}, {f.lines.rampUp, "load.ramp_up"}} {
		if c.line > 0 {
			d.errorf(c.line, "%s does not apply to a trace dataset: it is replayed on its own timestamps (scale them with dataset.time_scale)", c.key)
		}
	}
	if f.Dataset.TimeScale == 0 {
		f.Dataset.TimeScale = 1
	}
	if f.Dataset.HashBlockTokens == 0 {
		f.Dataset.HashBlockTokens = DefaultHashBlockTokens
	}
	f.Dataset.Format = traceFormat(f.Dataset)
	if _, ok := f.Dataset.Fields[FieldHashIDs]; ok && f.Dataset.Format == TraceCSV {
		d.errorf(f.lines.path, "dataset.fields.hash_ids applies to jsonl traces only (a csv cell holds one value)")
	}
}
