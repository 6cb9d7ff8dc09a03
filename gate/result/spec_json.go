package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// The three on-disk layouts of a spec. Field order is fixed by the
// structs, so the JSON is canonical; none may change without changing
// every identity hash of imported results (benchWire) or every spec of a
// stored baseline.

// servingWire is a serving cell's spec (no kind key).
type servingWire struct {
	Name        string      `json:"name"`
	Cell        string      `json:"cell"`
	Description string      `json:"description,omitempty"`
	API         string      `json:"api"`
	Model       string      `json:"model"`
	GPUs        int         `json:"gpus,omitempty"`
	Dataset     Dataset     `json:"dataset"`
	Load        loadWire    `json:"load"`
	Sampling    Sampling    `json:"sampling"`
	Warmups     int         `json:"warmups"`
	Trials      TrialBudget `json:"trials"`
	TimeoutS    float64     `json:"timeout_s"`
	SLO         SLO         `json:"slo"`
	Gate        []GateRule  `json:"gate,omitempty"`
	// The request options added after the layout was frozen: each is
	// left out when unset, so older specs encode byte for byte as before.
	ExtraBody         json.RawMessage `json:"extra_body,omitempty"`
	Headers           []Header        `json:"headers,omitempty"`
	MetricPercentiles []float64       `json:"metric_percentiles,omitempty"`
	// Kind and Capacity are written for capacity cells only, after every
	// serving key, so serving specs keep their bytes.
	Kind     string        `json:"kind,omitempty"`
	Capacity *CapacitySpec `json:"capacity,omitempty"`
}

type loadWire struct {
	Requests    int     `json:"requests"`
	Concurrency int     `json:"concurrency"`
	Rate        number  `json:"rate"`
	Burstiness  number  `json:"burstiness"`
	RampUp      *RampUp `json:"ramp_up,omitempty"`
	// SaturationShare is written only for a rate that is a share of
	// saturation.
	SaturationShare float64 `json:"saturation_share,omitempty"`
}

// commandWire is a command cell's spec.
type commandWire struct {
	Name        string      `json:"name"`
	Cell        string      `json:"cell"`
	Description string      `json:"description,omitempty"`
	Kind        string      `json:"kind"`
	GPUs        int         `json:"gpus,omitempty"`
	Command     Command     `json:"command"`
	TimeoutS    float64     `json:"timeout_s,omitempty"`
	Trials      TrialBudget `json:"trials"`
	Gate        []GateRule  `json:"gate,omitempty"`
}

// benchWire is an imported cell's spec. request_rate is a string ("inf",
// "2.5") as vLLM's own key is; burstiness is a JSON number, or "inf" for
// constant spacing, which JSON cannot write as a number.
type benchWire struct {
	Kind           string `json:"kind"`
	NumPrompts     int    `json:"num_prompts"`
	RequestRate    string `json:"request_rate"`
	Burstiness     any    `json:"burstiness"`
	MaxConcurrency int    `json:"max_concurrency"`
	MeanInputLen   int    `json:"mean_input_len"`
	MeanOutputLen  int    `json:"mean_output_len"`
	EndpointType   string `json:"endpoint_type,omitempty"`
	RampUp         string `json:"ramp_up,omitempty"`
	// DatasetName and Seed: only importers whose files record them write
	// them (vLLM's files do not, so their identity is as it was).
	DatasetName string  `json:"dataset_name,omitempty"`
	Seed        *uint64 `json:"seed,omitempty"`
}

// specFields is every key of the three layouts, for decoding.
type specFields struct {
	Kind        string        `json:"kind"`
	Name        string        `json:"name"`
	Cell        string        `json:"cell"`
	Description string        `json:"description"`
	API         string        `json:"api"`
	Model       string        `json:"model"`
	GPUs        int           `json:"gpus"`
	Dataset     Dataset       `json:"dataset"`
	Load        loadWire      `json:"load"`
	Sampling    Sampling      `json:"sampling"`
	Warmups     int           `json:"warmups"`
	Trials      TrialBudget   `json:"trials"`
	TimeoutS    float64       `json:"timeout_s"`
	SLO         SLO           `json:"slo"`
	Gate        []GateRule    `json:"gate"`
	Command     *Command      `json:"command"`
	Capacity    *CapacitySpec `json:"capacity"`

	ExtraBody         json.RawMessage `json:"extra_body"`
	Headers           []Header        `json:"headers"`
	MetricPercentiles []float64       `json:"metric_percentiles"`

	NumPrompts     int     `json:"num_prompts"`
	RequestRate    *number `json:"request_rate"`
	Burstiness     *number `json:"burstiness"`
	MaxConcurrency int     `json:"max_concurrency"`
	MeanInputLen   int     `json:"mean_input_len"`
	MeanOutputLen  int     `json:"mean_output_len"`
	EndpointType   string  `json:"endpoint_type"`
	RampUp         string  `json:"ramp_up"`
	DatasetName    string  `json:"dataset_name"`
	Seed           *uint64 `json:"seed"`
}

// MarshalJSON writes s in the layout of its kind.
func (s Spec) MarshalJSON() ([]byte, error) {
	switch s.Kind {
	case KindServing, "", KindCapacity:
		w := servingWire{
			Name: s.Name, Cell: s.Cell, Description: s.Description, API: s.API, Model: s.Model,
			GPUs: s.GPUs, Dataset: s.Dataset,
			Load: loadWire{Requests: s.Load.Requests, Concurrency: s.Load.Concurrency, Rate: number(s.Load.Rate), Burstiness: number(s.Load.Burstiness), RampUp: s.Load.RampUp,
				SaturationShare: s.Load.SaturationShare},
			Sampling: s.Sampling, Warmups: s.Warmups, Trials: s.Trials, TimeoutS: s.TimeoutS,
			SLO: s.SLO, Gate: s.Gate,
			ExtraBody: s.ExtraBody, Headers: s.Headers, MetricPercentiles: s.MetricPercentiles,
		}
		if s.Kind == KindCapacity {
			if s.Capacity == nil {
				return nil, fmt.Errorf("capacity spec %s: no capacity settings", s.Cell)
			}
			w.Kind, w.Capacity = KindCapacity, s.Capacity
		}
		return json.Marshal(w)
	case KindCommand:
		var c Command
		if s.Command != nil {
			c = *s.Command
		}
		return json.Marshal(commandWire{
			Name: s.Name, Cell: s.Cell, Description: s.Description, Kind: KindCommand, GPUs: s.GPUs,
			Command: c, TimeoutS: s.TimeoutS, Trials: s.Trials, Gate: s.Gate,
		})
	case KindBench:
		var b Bench
		if s.Bench != nil {
			b = *s.Bench
		}
		if !(b.RequestRate > 0) || !(b.Burstiness > 0) {
			return nil, fmt.Errorf("vllm-bench spec: request rate %v and burstiness %v must be positive", b.RequestRate, b.Burstiness)
		}
		var burst any = b.Burstiness
		if math.IsInf(b.Burstiness, 1) {
			burst = "inf"
		}
		return json.Marshal(benchWire{
			Kind: KindBench, NumPrompts: b.NumPrompts, RequestRate: FormatRate(b.RequestRate), Burstiness: burst,
			MaxConcurrency: b.MaxConcurrency, MeanInputLen: b.MeanInputLen, MeanOutputLen: b.MeanOutputLen,
			EndpointType: b.EndpointType, RampUp: b.RampUp, DatasetName: b.DatasetName, Seed: b.Seed,
		})
	}
	return nil, fmt.Errorf("workload spec: unknown kind %q", s.Kind)
}

// UnmarshalJSON reads any of the three layouts. Keys of another layout
// are ignored, except the top-level gate list, which every kind may carry.
func (s *Spec) UnmarshalJSON(data []byte) error {
	var f specFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	out := Spec{
		Kind: f.Kind, Name: f.Name, Cell: f.Cell, Description: f.Description, GPUs: f.GPUs,
		Trials: f.Trials, TimeoutS: f.TimeoutS, Gate: f.Gate,
	}
	switch f.Kind {
	case "", KindServing, KindCapacity:
		out.Kind = KindServing
		out.API, out.Model, out.Dataset, out.Sampling, out.Warmups, out.SLO = f.API, f.Model, f.Dataset, f.Sampling, f.Warmups, f.SLO
		out.Load = Load{Requests: f.Load.Requests, Concurrency: f.Load.Concurrency, Rate: float64(f.Load.Rate), Burstiness: float64(f.Load.Burstiness), RampUp: f.Load.RampUp,
			SaturationShare: f.Load.SaturationShare}
		out.ExtraBody, out.Headers, out.MetricPercentiles = compact(f.ExtraBody), f.Headers, f.MetricPercentiles
		if f.Kind == KindCapacity {
			out.Kind, out.Capacity = KindCapacity, f.Capacity
			if out.Capacity == nil {
				out.Capacity = &CapacitySpec{}
			}
		}
	case KindCommand:
		out.Command = f.Command
		if out.Command == nil {
			out.Command = &Command{}
		}
	case KindBench:
		b := &Bench{
			NumPrompts: f.NumPrompts, MaxConcurrency: f.MaxConcurrency,
			MeanInputLen: f.MeanInputLen, MeanOutputLen: f.MeanOutputLen, EndpointType: f.EndpointType, RampUp: f.RampUp,
			DatasetName: f.DatasetName, Seed: f.Seed,
			RequestRate: math.Inf(1), Burstiness: 1, // vLLM's defaults
		}
		if f.RequestRate != nil {
			b.RequestRate = float64(*f.RequestRate)
		}
		if f.Burstiness != nil {
			b.Burstiness = float64(*f.Burstiness)
		}
		out.Bench = b
	default:
		return fmt.Errorf("unknown kind %q (this perfgate reads %s, %s, %s and %s)", f.Kind, KindServing, KindCapacity, KindCommand, KindBench)
	}
	*s = out
	return nil
}

// compact returns raw JSON in its compact form: a result file re-indents
// the spec it holds, and extra_body must read back as the canonical
// bytes that were sent and hashed. null and nil read as nil.
func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
