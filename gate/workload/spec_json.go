package workload

import "encoding/json"

// specJSON is the resolved specification of one cell, stored in result
// files so a result can be read without its workload file. Field order is
// fixed by the struct, so the JSON is canonical.
type specJSON struct {
	Name        string      `json:"name"`
	Cell        string      `json:"cell"`
	Description string      `json:"description,omitempty"`
	API         API         `json:"api"`
	Model       string      `json:"model"`
	GPUs        int         `json:"gpus,omitempty"`
	Dataset     datasetJSON `json:"dataset"`
	Load        loadJSON    `json:"load"`
	Sampling    Sampling    `json:"sampling"`
	Warmups     int         `json:"warmups"`
	Trials      TrialBudget `json:"trials"`
	TimeoutS    float64     `json:"timeout_s"`
	SLO         SLO         `json:"slo"`
	Gate        []GateRule  `json:"gate,omitempty"`
}

type datasetJSON struct {
	Kind         string      `json:"kind"`
	InputTokens  int         `json:"input_tokens,omitempty"`
	OutputTokens int         `json:"output_tokens,omitempty"`
	RangeRatio   float64     `json:"range_ratio"`
	PrefixTokens int         `json:"prefix_tokens,omitempty"`
	NumPrefixes  int         `json:"num_prefixes,omitempty"`
	Seed         uint64      `json:"seed"`
	Path         string      `json:"path,omitempty"`
	SHA256       string      `json:"sha256,omitempty"`
	TokenIDs     *TokenRange `json:"token_ids,omitempty"`
}

type loadJSON struct {
	Requests    int    `json:"requests"`
	Concurrency int    `json:"concurrency"`
	Rate        number `json:"rate"`
	Burstiness  number `json:"burstiness"`
}

// spec returns the canonical JSON of cell c of f.
func (f *File) spec(c cellSpec) []byte {
	ds := f.Dataset
	d := datasetJSON{
		Kind: ds.Kind, InputTokens: ds.InputTokens, OutputTokens: ds.OutputTokens,
		RangeRatio: ds.RangeRatio, PrefixTokens: ds.PrefixTokens, NumPrefixes: ds.NumPrefixes,
		Seed: ds.Seed, Path: ds.Path, SHA256: ds.SHA256,
	}
	if generated(ds.Kind) && f.API == Completions {
		r := ds.TokenIDs
		d.TokenIDs = &r
	}
	b, _ := json.Marshal(specJSON{
		Name: f.Name, Cell: c.name, Description: f.Description, API: f.API, Model: f.Model,
		GPUs: f.GPUs, Dataset: d,
		Load:     loadJSON{Requests: f.Load.Requests, Concurrency: c.concurrency, Rate: number(c.rate), Burstiness: number(f.Load.Burstiness)},
		Sampling: f.Sampling, Warmups: f.Warmups, Trials: f.Trials, TimeoutS: f.Timeout.Seconds(),
		SLO: f.SLO, Gate: f.Gate,
	})
	return b
}
