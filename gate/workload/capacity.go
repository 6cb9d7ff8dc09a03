package workload

import (
	"math"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/capacity"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// KindCapacity is a workload that searches for the largest request rate
// (or concurrency) at which its SLO holds for a share of requests
// (package gate/capacity). Its request stream is a serving workload's:
// one probe sends load.requests requests after the warmups.
const KindCapacity = result.KindCapacity

// CapacitySpec are a capacity workload's search settings.
type CapacitySpec = result.CapacitySpec

// The metrics a capacity workload gates unless its gate list names them.
const (
	MetricCapacityRPS         = "capacity_rps"
	MetricCapacityConcurrency = "capacity_concurrency"
	MetricSaturation          = "saturation_throughput"
)

// IsCapacity reports whether m is a kind: capacity cell.
func (m *Manifest) IsCapacity() bool { return m.Kind == KindCapacity }

// capacityLines are where the capacity keys were written.
type capacityLines struct {
	block, rate, concurrency int
}

// capacity decodes the capacity block.
func (d *decoder) capacity(n *yaml.Node, keyLine int, f *File) {
	c := &f.Capacity
	f.lines.capacity.block = keyLine
	for _, fl := range d.mapping(n, "capacity", "goodput_share", "over", "max_probes", "resolution", "max_concurrency") {
		v := fl.value
		switch fl.key {
		case "goodput_share":
			c.GoodputShare = d.share(v, "capacity.goodput_share")
		case "over":
			if s := d.oneOf(v, "capacity.over", result.OverRate, result.OverConcurrency); s != "" {
				c.Over = s
			}
		case "max_probes":
			c.MaxProbes = d.integer(v, "capacity.max_probes", 2, 50)
		case "resolution":
			c.Resolution = d.share(v, "capacity.resolution")
			if c.Resolution >= 0.5 {
				d.errorf(v.Line, "capacity.resolution %s is too coarse: the search stops when the bracket is this share of its upper end; use at most 50%% (the default is 2%%)", v.Value)
			}
		case "max_concurrency":
			c.MaxConcurrency = d.integer(v, "capacity.max_concurrency", 1, 1000000)
		}
	}
}

// share reads a share written as a percentage ("95%") or a fraction
// (0.95), in (0, 1].
func (d *decoder) share(v *yaml.Node, key string) float64 {
	if !d.scalar(v, key) {
		return 0
	}
	s := strings.TrimSpace(v.Value)
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(t), 100
	}
	x, err := floatLiteral(s)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || !(x/scale > 0 && x/scale <= 1) {
		d.errorf(v.Line, "%s must be a share in (0, 1] such as 95%% or 0.95, got %q", key, v.Value)
		return 0
	}
	return x / scale
}

// capacityChecks applies the rules of a kind: capacity file after its keys
// were read: the search needs an SLO to search by, chooses the load itself,
// and gates its own metrics unless the gate list says otherwise.
func (d *decoder) capacityChecks(f *File, line int) {
	c := &f.Capacity
	if f.lines.capacity.block == 0 {
		d.errorf(line, "workload: kind: capacity needs a capacity block, e.g. capacity: {goodput_share: 95%%}")
	}
	if !f.SLO.Set() {
		d.errorf(line, "workload: kind: capacity needs an slo (ttft_ms, tpot_ms and/or e2el_ms): the capacity is the largest load at which the SLO holds")
	}
	if f.lines.capacity.rate > 0 {
		d.errorf(f.lines.capacity.rate, "load.rate does not apply to a kind: capacity workload: the search chooses the rate")
	}
	// Probes re-time unit-rate arrivals (Manifest.At); a ramp or a
	// trace's own timestamps cannot be re-timed to a rate.
	if f.Load.RampUp != nil {
		d.errorf(f.lines.rampUp, "load.ramp_up does not apply to a kind: capacity workload: the search chooses the rate")
	}
	if f.Dataset.Kind == KindTrace {
		d.errorf(line, "a trace dataset replays its own timestamps and cannot be probed at other rates: a kind: capacity workload needs another dataset")
	}
	// The requests are timed for 1 req/s; each probe re-times them.
	f.Load.Rate = []float64{1}
	if c.Over == "" {
		c.Over = result.OverRate
	}
	if c.GoodputShare == 0 {
		c.GoodputShare = capacity.DefaultShare
	}
	if c.MaxProbes == 0 {
		c.MaxProbes = capacity.DefaultMaxProbes
	}
	if c.Resolution == 0 {
		c.Resolution = capacity.DefaultResolution
	}
	switch c.Over {
	case result.OverConcurrency:
		if f.lines.capacity.concurrency > 0 {
			d.errorf(f.lines.capacity.concurrency, "load.concurrency does not apply to a capacity search over concurrency: the search chooses it (bound it with capacity.max_concurrency)")
		}
		if c.MaxConcurrency == 0 {
			c.MaxConcurrency = f.Load.Requests
		}
	default:
		if c.MaxConcurrency > 0 {
			d.errorf(f.lines.capacity.block, "capacity.max_concurrency only applies to over: concurrency (cap a rate search's concurrency with load.concurrency)")
		}
		if len(f.Load.Concurrency) > 1 {
			d.errorf(f.lines.capacity.concurrency, "load.concurrency: a capacity workload takes one concurrency cap, not a sweep")
		}
	}
	named := map[string]bool{}
	for _, r := range f.Gate {
		named[r.Metric] = true
	}
	main := MetricCapacityRPS
	if c.Over == result.OverConcurrency {
		main = MetricCapacityConcurrency
	}
	for _, id := range []string{main, MetricSaturation} {
		if !named[id] {
			f.Gate = append(f.Gate, GateRule{Metric: id})
		}
	}
	for _, r := range f.Gate {
		if m, ok := metrics.Lookup(r.Metric); ok && !capacityMetric(r.Metric) && m.Direction != metrics.Informational && (r.Gated == nil || *r.Gated) {
			d.errorf(line, "gate: %s is not measured by a kind: capacity workload (its trials carry %s, %s and %s)", r.Metric, MetricCapacityRPS, MetricCapacityConcurrency, MetricSaturation)
		}
	}
}

// capacityMetric reports whether id is one of a capacity trial's values.
func capacityMetric(id string) bool {
	return id == MetricCapacityRPS || id == MetricCapacityConcurrency || id == MetricSaturation
}

// expandCapacity turns the single cell of a capacity file into a manifest
// whose requests are timed for a rate of 1 req/s (At re-times them per
// probe), with the search settings in Capacity.
func (f *File) expandCapacity(m *Manifest) {
	c := f.Capacity
	m.Kind, m.Capacity = KindCapacity, &c
}

// At returns m as one load point: its requests re-timed for rate (req/s,
// +Inf for all at once) under a concurrency cap (0: none). It is how a
// capacity search's probes and a share-of-saturation cell's trials get
// their arrivals. m's requests must be timed for 1 req/s, as a capacity
// or share-of-saturation manifest's are: vLLM's gamma arrivals at rate r
// are those at rate 1 divided by r (the gamma's scale is 1/(r·shape)
// and the offsets are rescaled to end at n/r), so scaling reproduces
// exactly what expansion at rate r would have drawn. The result is a
// plain serving manifest; m is not changed.
func (m *Manifest) At(rate float64, concurrency int) *Manifest {
	out := *m
	out.Kind, out.Capacity, out.SaturationShare = KindServing, nil, 0
	out.Rate, out.Concurrency = rate, concurrency
	out.Requests = make([]Request, len(m.Requests))
	copy(out.Requests, m.Requests)
	for i := range out.Requests {
		if math.IsInf(rate, 1) {
			out.Requests[i].Arrival = 0
		} else {
			out.Requests[i].Arrival = time.Duration(math.Round(float64(m.Requests[i].Arrival) / rate))
		}
	}
	return &out
}

// saturationShare reads `load.rate: 80%-of-saturation` (a single value;
// in a list it is refused, since a sweep of shares would measure
// saturation once per cell). It reports whether v was written as a share,
// well formed or not.
func (d *decoder) saturationShare(v *yaml.Node, l *Load) bool {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	any := false
	for _, item := range items {
		any = any || item.Kind == yaml.ScalarNode && capacity.IsShareOfSaturation(item.Value)
	}
	if !any {
		return false
	}
	if v.Kind != yaml.ScalarNode {
		d.errorf(v.Line, "load.rate: a share of saturation is a single value, not part of a sweep")
		return true
	}
	s, err := capacity.ParseShare(v.Value)
	if err != nil {
		d.errorf(v.Line, "load.rate: %v", err)
		return true
	}
	l.SaturationShare, l.Rate = s, []float64{1}
	return true
}

// servingChecks applies the capacity-related rules of a serving file: a
// share of saturation is one load point (no concurrency sweep), and the
// capacity metrics are measured only by kind: capacity workloads.
func (d *decoder) servingChecks(f *File, line int) {
	if f.Load.SaturationShare > 0 && len(f.Load.Concurrency) > 1 {
		d.errorf(f.lines.capacity.rate, "load.rate %s: a share of saturation cannot be combined with a concurrency sweep", capacity.FormatShare(f.Load.SaturationShare))
	}
	for _, r := range f.Gate {
		if capacityMetric(r.Metric) {
			d.errorf(line, "gate: %s is measured only by a kind: capacity workload", r.Metric)
		}
	}
}
