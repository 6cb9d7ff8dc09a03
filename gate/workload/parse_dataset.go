package workload

import (
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"gopkg.in/yaml.v3"
)

// datasetKeys lists the keys each dataset kind accepts besides kind and seed.
var datasetKeys = map[string][]string{
	KindRandom:           {"input_tokens", "output_tokens", "range_ratio", "prefix_tokens", "token_ids", "prompt_format"},
	KindPrefixRepetition: {"input_tokens", "output_tokens", "range_ratio", "prefix_tokens", "num_prefixes", "token_ids", "prompt_format"},
	KindShareGPT:         {"output_tokens", "path", "sha256", "required"},
	KindJSONL:            {"output_tokens", "path", "sha256", "required"},
	KindTrace:            {"output_tokens", "path", "sha256", "required", "format", "time_scale", "hash_block_tokens", "max_duration", "fields"},
}

var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (d *decoder) dataset(n *yaml.Node, keyLine int, f *File) {
	ds := &f.Dataset
	ds.Required = true
	ds.TokenIDs = TokenRange{Min: DefaultTokenIDMin, Max: DefaultTokenIDMax}
	fields := d.mapping(n, "dataset", "kind", "input_tokens", "output_tokens", "range_ratio",
		"prefix_tokens", "num_prefixes", "seed", "path", "sha256", "required", "token_ids", "prompt_format",
		"format", "time_scale", "hash_block_tokens", "max_duration", "fields")
	lineOf := map[string]int{}
	for _, fl := range fields {
		lineOf[fl.key] = fl.line
		v := fl.value
		switch fl.key {
		case "kind":
			n0 := len(d.errs)
			ds.Kind = d.str(v, "dataset.kind")
			if _, ok := datasetKeys[ds.Kind]; !ok && len(d.errs) == n0 {
				d.errorf(v.Line, "dataset.kind must be random, prefix-repetition, sharegpt, jsonl or trace, got %q", ds.Kind)
			}
		case "input_tokens":
			ds.InputTokens = d.integer(v, "dataset.input_tokens", 1, 10000000)
		case "output_tokens":
			ds.OutputTokens = d.integer(v, "dataset.output_tokens", 1, 10000000)
		case "range_ratio":
			ds.RangeRatio = d.number(v, "dataset.range_ratio", "in [0, 1)", func(x float64) bool { return x >= 0 && x < 1 })
		case "prefix_tokens":
			ds.PrefixTokens = d.integer(v, "dataset.prefix_tokens", 0, 10000000)
		case "num_prefixes":
			f.lines.numPrefixes = v.Line
			ds.NumPrefixes = d.integer(v, "dataset.num_prefixes", 1, 1000000)
		case "seed":
			ds.Seed = uint64(d.integer(v, "dataset.seed", 0, math.MaxInt64))
		case "path":
			f.lines.path = v.Line
			ds.Path = d.text(v, "dataset.path")
			if ds.Path == "" && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!null" {
				d.errorf(v.Line, "dataset.path must not be empty")
			}
		case "sha256":
			f.lines.sha256 = v.Line
			ds.SHA256 = d.text(v, "dataset.sha256")
			if ds.SHA256 != "" && !sha256Pattern.MatchString(ds.SHA256) {
				d.errorf(v.Line, "dataset.sha256 must be 64 lowercase hex digits, got %q", ds.SHA256)
			}
		case "required":
			f.lines.required = v.Line
			ds.Required = d.boolean(v, "dataset.required")
		case "token_ids":
			f.lines.tokenIDs = fl.line
			d.tokenIDs(v, &ds.TokenIDs)
		case "prompt_format":
			f.lines.promptFormat = v.Line
			d.promptFormat(v, ds)
		default:
			d.traceKey(fl, ds)
		}
	}
	if _, ok := lineOf["kind"]; !ok {
		d.errorf(keyLine, "dataset: missing required key kind")
		return
	}
	allowed, ok := datasetKeys[ds.Kind]
	if !ok {
		return
	}
	for _, fl := range fields {
		if fl.key != "kind" && fl.key != "seed" && !slices.Contains(allowed, fl.key) {
			d.errorf(fl.line, "dataset: %s does not apply to kind %s", fl.key, ds.Kind)
		}
	}
	need := func(key string) {
		if _, ok := lineOf[key]; !ok {
			d.errorf(keyLine, "dataset: kind %s requires %s", ds.Kind, key)
		}
	}
	switch ds.Kind {
	case KindRandom:
		need("input_tokens")
		need("output_tokens")
	case KindPrefixRepetition:
		need("input_tokens")
		need("output_tokens")
		need("prefix_tokens")
		if ds.NumPrefixes == 0 {
			ds.NumPrefixes = DefaultNumPrefixes
		}
		if _, ok := lineOf["prefix_tokens"]; ok && ds.PrefixTokens < 1 {
			d.errorf(lineOf["prefix_tokens"], "dataset.prefix_tokens must be >= 1 for kind prefix-repetition")
		}
	case KindShareGPT, KindJSONL, KindTrace:
		need("path")
	}
}

func (d *decoder) tokenIDs(n *yaml.Node, r *TokenRange) {
	for _, fl := range d.mapping(n, "dataset.token_ids", "min", "max") {
		switch fl.key {
		case "min":
			r.Min = d.integer(fl.value, "dataset.token_ids.min", 0, math.MaxInt32)
		case "max":
			r.Max = d.integer(fl.value, "dataset.token_ids.max", 0, math.MaxInt32)
		}
	}
	if r.Max <= r.Min {
		d.errorf(n.Line, "dataset.token_ids: max (%d) must be greater than min (%d)", r.Max, r.Min)
	}
}

func (d *decoder) gate(n *yaml.Node, f *File) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n.Line, "gate must be a list of rules, got %s", describe(n))
		return
	}
	seen := map[string]int{}
	for _, item := range n.Content {
		var rule GateRule
		var tolNode *yaml.Node
		haveMetric, haveGated := false, false
		for _, fl := range d.mapping(item, "gate rule", "metric", "tolerance", "gated") {
			switch fl.key {
			case "metric":
				haveMetric = true
				rule.Metric = d.str(fl.value, "gate.metric")
			case "tolerance":
				tolNode = fl.value
			case "gated":
				haveGated = true
				g := d.boolean(fl.value, "gate.gated")
				rule.Gated = &g
			}
		}
		if item.Kind != yaml.MappingNode {
			continue
		}
		if !haveMetric {
			d.errorf(item.Line, "gate rule: missing required key metric")
			continue
		}
		m, ok := metrics.Lookup(rule.Metric)
		if !ok {
			d.errorf(item.Line, "gate: unknown metric id %q (ids are listed in docs/workloads.md)", rule.Metric)
			continue
		}
		if !metrics.RecordedWith(rule.Metric, f.MetricPercentiles) {
			// Any percentile is a valid id (imported files carry p25), but
			// a run records only the catalogue's statistics and the
			// workload's metric_percentiles: a rule on another would find
			// nothing to gate.
			d.errorf(item.Line, "gate: %s is never recorded by perfgate (distributions record %s)%s", rule.Metric, recordedStats(), addPercentileHint(rule.Metric))
			continue
		}
		if prev, dup := seen[rule.Metric]; dup {
			d.errorf(item.Line, "gate: metric %s already has a rule at line %d", rule.Metric, prev)
			continue
		}
		seen[rule.Metric] = item.Line
		if tolNode != nil {
			rule.Tolerance = d.tolerance(tolNode, m.Unit == "ratio")
		}
		if tolNode == nil && !haveGated {
			d.errorf(item.Line, "gate rule for %s sets neither tolerance nor gated", rule.Metric)
		}
		if m.Direction == metrics.Informational && (tolNode != nil || (rule.Gated != nil && *rule.Gated)) {
			d.errorf(item.Line, "gate: %s is informational and cannot be gated", rule.Metric)
		}
		f.Gate = append(f.Gate, rule)
	}
}

// addPercentileHint tells how to record the percentile of id, if it is one.
func addPercentileHint(id string) string {
	pid, ok := metrics.ParseID(id)
	if !ok {
		return ""
	}
	p, ok := pid.Stat.Percentile()
	if !ok || !(p > 0 && p < 100) {
		return ""
	}
	return "; add " + ftoa(p) + " to metric_percentiles to record it"
}

// recordedStats lists the statistics a run records of each distribution.
func recordedStats() string {
	names := make([]string, len(metrics.Stats))
	for i, st := range metrics.Stats {
		names[i] = st.String()
	}
	return strings.Join(names, ", ")
}

// crossCheck validates rules spanning several keys, once every key decoded.
func (d *decoder) crossCheck(f *File) {
	ds, l := &f.Dataset, &f.Load
	if f.Warmups < 0 {
		f.Warmups = min(DefaultWarmups, l.Requests)
	}
	if f.lines.tokenIDs > 0 && f.API != Completions {
		d.errorf(f.lines.tokenIDs, "dataset.token_ids only applies to the completions API (chat prompts are text)")
	}
	d.crossCheckPromptFormat(f)
	if ds.Kind == KindTrace {
		d.traceLoad(f)
	}
	if ds.Kind == KindPrefixRepetition && ds.NumPrefixes > l.Requests {
		line := f.lines.numPrefixes
		if line == 0 {
			line = f.lines.requests
		}
		d.errorf(line, "dataset.num_prefixes (%d) exceeds load.requests (%d)", ds.NumPrefixes, l.Requests)
	}
	if generated(ds.Kind) {
		lo, _ := lengthRange(ds.OutputTokens, ds.RangeRatio)
		if f.Sampling.MinTokens > lo {
			d.errorf(f.lines.minTokens, "sampling.min_tokens (%d) exceeds the shortest output length (%d)", f.Sampling.MinTokens, lo)
		}
		_, hi := lengthRange(ds.InputTokens, ds.RangeRatio)
		per := int64(hi + ds.PrefixTokens)
		if total := per * int64(l.Requests+f.Warmups); total > maxCellTokens {
			d.errorf(f.lines.requests, "the workload expands to up to %d prompt tokens; the limit is %d", total, maxCellTokens)
		}
	} else if ds.OutputTokens > 0 && f.Sampling.MinTokens > ds.OutputTokens {
		d.errorf(f.lines.minTokens, "sampling.min_tokens (%d) exceeds dataset.output_tokens (%d)", f.Sampling.MinTokens, ds.OutputTokens)
	}
}

// generated reports whether a dataset kind is generated rather than read.
func generated(kind string) bool { return kind == KindRandom || kind == KindPrefixRepetition }

// lengthRange is vLLM's random length range [floor(L(1-r)), ceil(L(1+r))],
// with the lower end raised to 1.
func lengthRange(l int, r float64) (int, int) {
	lo := int(math.Floor(float64(l) * (1 - r)))
	hi := int(math.Ceil(float64(l) * (1 + r)))
	return max(lo, 1), max(hi, 1)
}
