package workload

import (
	"encoding/json"

	"github.com/perfgate/perfgate/gate/result"
)

// spec returns the resolved specification of cell c of f as the canonical
// JSON stored in result files (result.Spec owns the layout), so a result
// can be read without its workload file.
func (f *File) spec(c cellSpec) []byte {
	ds := f.Dataset
	d := result.Dataset{
		Kind: ds.Kind, InputTokens: ds.InputTokens, OutputTokens: ds.OutputTokens,
		RangeRatio: ds.RangeRatio, PrefixTokens: ds.PrefixTokens, NumPrefixes: ds.NumPrefixes,
		Seed: ds.Seed, Path: ds.Path, SHA256: ds.SHA256,
		Format: ds.Format, TimeScale: ds.TimeScale, HashBlockTokens: ds.HashBlockTokens, MaxDurationS: ds.MaxDuration.Seconds(),
		Fields: ds.Fields,
	}
	if f.textMode() {
		d.PromptFormat = PromptText
	}
	if generated(ds.Kind) && f.API == Completions && !f.textMode() {
		r := ds.TokenIDs
		d.TokenIDs = &r
	}
	s := result.Spec{
		Kind: result.KindServing, Name: f.Name, Cell: c.name, Description: f.Description,
		API: string(f.API), Model: f.Model, GPUs: f.GPUs, Dataset: d,
		Load:     result.Load{Requests: f.Load.Requests, Concurrency: c.concurrency, Rate: c.rate, Burstiness: f.Load.Burstiness, RampUp: f.Load.RampUp},
		Sampling: f.Sampling, Warmups: f.Warmups, Trials: f.Trials, TimeoutS: f.Timeout.Seconds(),
		SLO: f.SLO, Gate: f.Gate,
		ExtraBody: f.ExtraBody, Headers: f.Headers, MetricPercentiles: f.MetricPercentiles,
	}
	// The rate of a capacity cell or of a share of saturation is chosen at
	// run time; the spec records 0 and what chooses it.
	if f.Load.SaturationShare > 0 {
		s.Load.Rate, s.Load.SaturationShare = 0, f.Load.SaturationShare
	}
	if f.Kind == KindCapacity {
		c := f.Capacity
		s.Kind, s.Capacity, s.Load.Rate = result.KindCapacity, &c, 0
	}
	return mustSpec(s)
}

// mustSpec encodes a spec built from a validated file. Validation bounds
// every number the encoding could refuse (rates and burstiness are
// positive or +Inf), so an error is a bug.
func mustSpec(s result.Spec) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic("workload: spec of a validated file: " + err.Error())
	}
	return b
}
