package workload

import (
	"time"
)

// Expand expands a validated file into one manifest per cell. Dataset files
// are read and verified here. warnings holds problems that do not
// invalidate the file: when an optional dataset file is missing, its
// warning is returned and no cells are. err joins *Error values.
func (f *File) Expand() (ms []*Manifest, warnings []*Error, err error) {
	ms, warnings, errs := f.expand()
	if len(errs) > 0 {
		return nil, warnings, joinErrors(errs)
	}
	return ms, warnings, nil
}

func (f *File) expand() ([]*Manifest, []*Error, []*Error) {
	if f.Kind == KindCommand {
		return []*Manifest{f.expandCommand()}, nil, nil
	}
	var measured []item
	var warnings []*Error
	if generated(f.Dataset.Kind) {
		measured = f.generate(f.Load.Requests, "")
	} else {
		items, missing, errs := f.readDataset()
		if missing {
			return nil, errs, nil
		}
		errs, warnings = splitWarnings(errs)
		if len(errs) > 0 {
			return nil, nil, errs
		}
		measured = items
	}
	warm := f.warmups(f.Warmups, measured)
	warmups := make([]Request, len(warm))
	for i, it := range warm {
		warmups[i] = f.request(i, it, 0)
	}
	var out []*Manifest
	for _, c := range f.cells() {
		at := f.schedule(measured, c.rate)
		reqs := make([]Request, len(measured))
		for i, it := range measured {
			reqs[i] = f.request(i, it, at[i])
		}
		m := &Manifest{
			Name:        f.Name,
			Source:      f.Path,
			Cell:        c.name,
			API:         f.API,
			Model:       f.Model,
			Concurrency: c.concurrency,
			Rate:        c.rate,
			Burstiness:  f.Load.Burstiness,
			Sampling:    f.Sampling,
			Timeout:     f.Timeout,
			SLO:         f.SLO,
			Trials:      f.Trials,
			Gate:        f.Gate,
			Requests:    reqs,
			Warmups:     warmups,
			GPUs:        f.GPUs,
			ExtraBody:   f.ExtraBody,
			Headers:     f.Headers,
			RampUp:      f.Load.RampUp,
			Trace:       f.traceNote(),

			MetricPercentiles: f.MetricPercentiles,
			Warnings:          warningTexts(warnings),
			Profiling:         f.Profiling,
		}
		m.SaturationShare = f.Load.SaturationShare
		if f.Kind == KindCapacity {
			f.expandCapacity(m)
		}
		if f.textMode() {
			m.PromptFormat, m.seed = PromptText, f.Dataset.Seed
		}
		m.Spec = f.spec(c)
		m.Hash = Hash(m)
		out = append(out, m)
	}
	return out, warnings, nil
}

// schedule returns the arrival offsets of the measured items of a cell
// at rate: a trace's own timestamps, vLLM's ramp, or the fixed-rate
// schedule. Every cell draws from a fresh "arrivals" stream, so the
// schedule depends only on the seed and the load point.
func (f *File) schedule(measured []item, rate float64) []time.Duration {
	s := newStream(f.Dataset.Seed, "arrivals")
	switch {
	case f.Dataset.Kind == KindTrace:
		return traceArrivals(measured)
	case f.Load.RampUp != nil:
		return rampArrivals(len(measured), *f.Load.RampUp, f.Load.Burstiness, s)
	}
	return arrivals(len(measured), rate, f.Load.Burstiness, s)
}

// splitWarnings separates the warnings of a dataset read from its errors.
func splitWarnings(all []*Error) (errs, warnings []*Error) {
	for _, e := range all {
		if e.Warning {
			warnings = append(warnings, e)
		} else {
			errs = append(errs, e)
		}
	}
	return errs, warnings
}

// warningTexts is the text of each warning, as a manifest carries them.
func warningTexts(ws []*Error) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Error())
	}
	return out
}

// request shapes an item for the workload's API. Token ids (exact length)
// go to the completions API; text goes out as a prompt or, for chat, as
// one user message. Prompt slices are shared between the cells of a sweep
// and with warmups of other cells: manifests are read-only.
func (f *File) request(i int, it item, at time.Duration) Request {
	r := Request{Index: i, Arrival: at, InputTokens: it.input, MaxTokens: it.output, segs: it.segs}
	switch {
	case f.API == Chat:
		r.Messages = []Message{{Role: "user", Content: it.text}}
	case it.ids != nil:
		r.PromptIDs = it.ids
	default:
		r.Prompt = it.text
	}
	return r
}
