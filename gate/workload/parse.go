package workload

import (
	"bytes"
	"errors"
	"io"
	"math"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Parse decodes and validates a workload file's content. path is used in
// error messages and to resolve dataset paths; dataset files are not read
// here (see expand). Every problem is an *Error with a line number; all of
// them are returned, joined.
func Parse(path string, data []byte) (*File, error) {
	f, errs := parse(path, data)
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return f, nil
}

func joinErrors(errs []*Error) error {
	list := make([]error, len(errs))
	for i, e := range errs {
		list[i] = e
	}
	return errors.Join(list...)
}

var (
	yamlLine   = regexp.MustCompile(`line (\d+)`)
	yamlPrefix = regexp.MustCompile(`^yaml: (line \d+: )?`)
)

func parse(path string, data []byte) (*File, []*Error) {
	d := &decoder{file: path}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			d.errorf(1, "empty workload file")
			return nil, d.errs
		}
		d.errorf(syntaxLine(err), "invalid YAML: %s", trimYAML(err))
		return nil, d.errs
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errorf(extra.Line, "a workload file holds one YAML document; found another")
	} else if err != io.EOF {
		d.errorf(syntaxLine(err), "invalid YAML: %s", trimYAML(err))
	}
	if len(doc.Content) == 0 {
		d.errorf(1, "empty workload file")
		return nil, d.errs
	}
	d.noAliases(&doc)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	f := d.workload(doc.Content[0])
	f.Path = path
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return f, nil
}

// parserError matches yaml.v3's parser (not scanner) error messages.
var parserError = regexp.MustCompile(`did not find expected (<document start>|node content|key|'-' indicator|',' or '[\]}]')|found duplicate %|found incompatible YAML document`)

// syntaxLine extracts the 1-based line from a yaml.v3 syntax error ("yaml:
// line 3: ..."). yaml.v3 prints scanner errors with 1-based lines but
// parser errors with the 0-based line of their context mark, so the latter
// get one added. Errors without a line are on the first line.
func syntaxLine(err error) int {
	msg := err.Error()
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return 1
	}
	n, e := strconv.Atoi(m[1])
	if e != nil || n < 0 {
		return 1
	}
	if parserError.MatchString(msg) {
		n++
	}
	return max(n, 1)
}

func trimYAML(err error) string {
	return yamlPrefix.ReplaceAllString(err.Error(), "")
}

// noAliases refuses anchors and aliases: a frozen workload spells out every
// value, and refusing them also rules out alias expansion bombs.
func (d *decoder) noAliases(n *yaml.Node) {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		d.errorf(n.Line, "YAML anchors and aliases are not supported: write every value out")
		return
	}
	for _, c := range n.Content {
		d.noAliases(c)
	}
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// workload decodes the top-level mapping and applies defaults.
func (d *decoder) workload(n *yaml.Node) *File {
	f := &File{
		API:     Completions,
		Timeout: DefaultTimeout,
		Trials:  TrialBudget{Min: DefaultTrialsMin, Max: DefaultTrialsMax},
		Warmups: -1,
	}
	zero := 0.0
	f.Sampling = Sampling{Temperature: &zero, IgnoreEOS: true}
	if !d.isMapping(n, "workload") {
		return f
	}
	kind := d.workloadKind(n)
	switch kind {
	case KindCommand:
		d.commandWorkload(n, f)
		return f
	case "":
		return f
	}
	var haveName, haveDataset, haveLoad bool
	var gateNode *yaml.Node
	for _, fl := range d.mapping(n, "workload", "name", "description", "kind", "api", "model", "gpus",
		"dataset", "load", "sampling", "warmups", "trials", "timeout", "slo", "gate",
		"extra_body", "headers", "metric_percentiles", "capacity", "profiling") {
		v := fl.value
		switch fl.key {
		case "kind":
			f.Kind = kind
		case "capacity":
			if kind != KindCapacity {
				d.errorf(fl.line, "capacity applies only to a kind: capacity workload")
				continue
			}
			d.capacity(v, fl.line, f)
		case "name":
			haveName = true
			d.name(v, fl.line, f)
		case "description":
			f.Description = d.text(v, "description")
		case "api":
			if s := d.oneOf(v, "api", string(Completions), string(Chat)); s != "" {
				f.API = API(s)
			}
		case "model":
			f.Model = d.text(v, "model")
		case "gpus":
			f.GPUs = d.integer(v, "gpus", 1, 100000)
		case "dataset":
			haveDataset = true
			d.dataset(v, fl.line, f)
		case "load":
			haveLoad = true
			d.load(v, fl.line, f)
		case "sampling":
			d.sampling(v, f)
		case "warmups":
			f.Warmups = d.integer(v, "warmups", 0, 100000)
		case "trials":
			d.trials(v, &f.Trials)
		case "timeout":
			f.Timeout = d.duration(v, "timeout")
		case "slo":
			d.slo(v, &f.SLO)
		case "gate":
			gateNode = v // after metric_percentiles, which decides what is recorded
		case "extra_body":
			d.extraBody(v, f)
		case "headers":
			d.headers(v, f)
		case "metric_percentiles":
			d.metricPercentiles(v, f)
		case "profiling":
			d.profiling(v, f)
		}
	}
	if gateNode != nil {
		d.gate(gateNode, f)
	}
	line := n.Line
	if !haveName {
		d.errorf(line, "workload: missing required key name")
	}
	if !haveDataset {
		d.errorf(line, "workload: missing required key dataset")
	}
	if !haveLoad {
		d.errorf(line, "workload: missing required key load")
	}
	if kind == KindCapacity {
		f.Kind = KindCapacity
		d.capacityChecks(f, line)
	} else {
		d.servingChecks(f, line)
	}
	if len(d.errs) == 0 {
		d.crossCheck(f)
	}
	return f
}

// name reads the workload's name, which also names its result files.
func (d *decoder) name(v *yaml.Node, line int, f *File) {
	f.lines.name = line
	n0 := len(d.errs)
	f.Name = d.text(v, "name")
	if len(d.errs) == n0 && !namePattern.MatchString(f.Name) {
		d.errorf(v.Line, "name %q must be 1-100 letters, digits, '.', '_' or '-' (it names result files)", f.Name)
	}
}

// MinRate and MaxRate bound a finite load.rate. The schedule puts the last
// arrival at requests/rate seconds, so a tiny rate (1e-300) overflowed the
// arrival offsets into negative durations; with at most a million requests,
// MinRate keeps the schedule under 32 years, far inside a time.Duration, and
// anything slower than one request per 1000 s is no benchmark. Above
// MaxRate, write inf (everything at once) instead.
const (
	MinRate = 0.001
	MaxRate = 1e6
)

func (d *decoder) load(n *yaml.Node, keyLine int, f *File) {
	l := &f.Load
	l.Burstiness = 1
	haveRequests := false
	for _, fl := range d.mapping(n, "load", "requests", "concurrency", "rate", "burstiness", "ramp_up") {
		v := fl.value
		switch fl.key {
		case "requests":
			haveRequests = true
			f.lines.requests = v.Line
			l.Requests = d.integer(v, "load.requests", 1, 1000000)
		case "concurrency":
			f.lines.capacity.concurrency = v.Line
			seen := map[int]bool{}
			for _, item := range d.list(v, "load.concurrency") {
				c := d.integer(item, "load.concurrency", 0, 1000000)
				if seen[c] {
					d.errorf(item.Line, "load.concurrency: %d appears twice in the sweep", c)
				}
				seen[c] = true
				l.Concurrency = append(l.Concurrency, c)
			}
		case "rate":
			f.lines.rate = fl.line
			f.lines.capacity.rate = v.Line
			if d.saturationShare(v, l) {
				continue
			}
			seen := map[float64]bool{}
			for _, item := range d.list(v, "load.rate") {
				r := d.positiveOrInf(item, "load.rate")
				if r != 0 && !math.IsInf(r, 1) && (r < MinRate || r > MaxRate) {
					d.errorf(item.Line, "load.rate must be in [%s, %s] requests/s or inf, got %s", ftoa(MinRate), ftoa(MaxRate), item.Value)
				}
				if seen[r] {
					d.errorf(item.Line, "load.rate: %s appears twice in the sweep", item.Value)
				}
				seen[r] = true
				l.Rate = append(l.Rate, r)
			}
		case "burstiness":
			f.lines.burstiness = fl.line
			l.Burstiness = d.positiveOrInf(v, "load.burstiness")
		case "ramp_up":
			f.lines.rampUp = fl.line
			l.RampUp = d.rampUp(v)
		}
	}
	if l.RampUp != nil && len(l.Rate) > 0 {
		d.errorf(f.lines.rampUp, "load: ramp_up sets the rate; remove load.rate (vLLM refuses --request-rate with --ramp-up-strategy too)")
	}
	if !haveRequests {
		d.errorf(keyLine, "load: missing required key requests")
	}
	if len(l.Concurrency) == 0 {
		l.Concurrency = []int{0}
	}
	if len(l.Rate) == 0 {
		l.Rate = []float64{math.Inf(1)}
	}
}

func (d *decoder) sampling(n *yaml.Node, f *File) {
	s := &f.Sampling
	for _, fl := range d.mapping(n, "sampling", "temperature", "top_p", "seed", "ignore_eos", "min_tokens",
		"top_k", "min_p", "frequency_penalty", "presence_penalty", "repetition_penalty") {
		v := fl.value
		switch fl.key {
		case "temperature":
			t := d.number(v, "sampling.temperature", ">= 0", func(x float64) bool { return x >= 0 })
			s.Temperature = &t
		case "top_p":
			p := d.number(v, "sampling.top_p", "in (0, 1]", func(x float64) bool { return x > 0 && x <= 1 })
			s.TopP = &p
		case "seed":
			seed := int64(d.integer(v, "sampling.seed", math.MinInt32, math.MaxInt32))
			s.Seed = &seed
		case "ignore_eos":
			s.IgnoreEOS = d.boolean(v, "sampling.ignore_eos")
		case "min_tokens":
			f.lines.minTokens = v.Line
			s.MinTokens = d.integer(v, "sampling.min_tokens", 0, 10000000)
		default:
			d.samplingExtension(fl, s)
		}
	}
}

func (d *decoder) trials(n *yaml.Node, t *TrialBudget) {
	haveMax := false
	for _, fl := range d.mapping(n, "trials", "min", "max", "restarts") {
		switch fl.key {
		case "restarts":
			t.Restarts = d.integer(fl.value, "trials.restarts", 1, 100)
		case "min":
			t.Min = d.integer(fl.value, "trials.min", 1, 1000)
		case "max":
			haveMax = true
			t.Max = d.integer(fl.value, "trials.max", 1, 1000)
		}
	}
	if !haveMax && t.Max < t.Min {
		t.Max = t.Min
	}
	if t.Max < t.Min && t.Max > 0 {
		d.errorf(n.Line, "trials: max (%d) must be >= min (%d)", t.Max, t.Min)
	}
	if t.Restarts > t.Min {
		d.errorf(n.Line, "trials: restarts (%d) must be <= min (%d): every server start needs a trial", t.Restarts, t.Min)
	}
}

func (d *decoder) slo(n *yaml.Node, s *SLO) {
	positive := func(x float64) bool { return x > 0 }
	for _, fl := range d.mapping(n, "slo", "ttft_ms", "tpot_ms", "e2el_ms") {
		v := d.number(fl.value, "slo."+fl.key, "> 0", positive)
		switch fl.key {
		case "ttft_ms":
			s.TTFTms = v
		case "tpot_ms":
			s.TPOTms = v
		case "e2el_ms":
			s.E2ELms = v
		}
	}
}
