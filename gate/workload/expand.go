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
	if generated(f.Dataset.Kind) {
		measured = f.generate(f.Load.Requests, "")
	} else {
		items, missing, errs := f.readDataset()
		if missing {
			return nil, errs, nil
		}
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
		at := arrivals(len(measured), c.rate, f.Load.Burstiness, newStream(f.Dataset.Seed, "arrivals"))
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
		}
		m.SaturationShare = f.Load.SaturationShare
		if f.Kind == KindCapacity {
			f.expandCapacity(m)
		}
		m.Spec = f.spec(c)
		m.Hash = Hash(m)
		out = append(out, m)
	}
	return out, nil, nil
}

// request shapes an item for the workload's API. Token ids (exact length)
// go to the completions API; text goes out as a prompt or, for chat, as
// one user message. Prompt slices are shared between the cells of a sweep
// and with warmups of other cells: manifests are read-only.
func (f *File) request(i int, it item, at time.Duration) Request {
	r := Request{Index: i, Arrival: at, InputTokens: it.input, MaxTokens: it.output}
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
