package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary condenses one cell's manifest for `perfgate plan`.
type Summary struct {
	Cell     string
	Hash     string
	Requests int
	Warmups  int
	// Input and Output summarise input tokens and max_tokens.
	Input, Output Stats
	// FirstArrival and LastArrival span the arrival offsets.
	FirstArrival, LastArrival time.Duration
}

// Stats are the minimum, mean and maximum of a list of lengths.
type Stats struct {
	Min, Max int
	Mean     float64
}

// Summarize computes m's summary.
func Summarize(m *Manifest) Summary {
	s := Summary{Cell: m.Cell, Hash: m.Hash, Requests: len(m.Requests), Warmups: len(m.Warmups)}
	in := make([]int, len(m.Requests))
	out := make([]int, len(m.Requests))
	for i, r := range m.Requests {
		in[i], out[i] = r.InputTokens, r.MaxTokens
	}
	s.Input, s.Output = stats(in), stats(out)
	if n := len(m.Requests); n > 0 {
		s.FirstArrival, s.LastArrival = m.Requests[0].Arrival, m.Requests[n-1].Arrival
	}
	return s
}

func stats(x []int) Stats {
	if len(x) == 0 {
		return Stats{}
	}
	s := Stats{Min: x[0], Max: x[0]}
	sum := 0
	for _, v := range x {
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
		sum += v
	}
	s.Mean = float64(sum) / float64(len(x))
	return s
}

// WritePlan prints a human-readable block per cell.
func WritePlan(w io.Writer, ms []*Manifest) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, m := range ms {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		if m.IsCommand() {
			writeCommandPlan(tw, m)
			continue
		}
		s := Summarize(m)
		model := m.Model
		if model == "" {
			model = "(the server's first model)"
		}
		conc := "unlimited"
		if m.Concurrency > 0 {
			conc = itoa(m.Concurrency)
		}
		inputNote := ""
		if m.API == Chat || (len(m.Requests) > 0 && m.Requests[0].PromptIDs == nil) {
			inputNote = " (approximate: text prompts)"
		}
		if m.PromptFormat == PromptText {
			inputNote = " (text prompts, sized to the server's tokenizer before the first trial)"
		}
		fmt.Fprintf(tw, "cell\t%s\n", s.Cell)
		fmt.Fprintf(tw, "hash\t%s\n", s.Hash)
		fmt.Fprintf(tw, "source\t%s\n", m.Source)
		fmt.Fprintf(tw, "api\t%s, model %s\n", m.API, model)
		fmt.Fprintf(tw, "requests\t%d measured, %d warmups\n", s.Requests, s.Warmups)
		fmt.Fprintf(tw, "input tokens\tmin %d, mean %.1f, max %d%s\n", s.Input.Min, s.Input.Mean, s.Input.Max, inputNote)
		fmt.Fprintf(tw, "max tokens\tmin %d, mean %.1f, max %d\n", s.Output.Min, s.Output.Mean, s.Output.Max)
		switch {
		case m.IsCapacity():
			c := m.Capacity
			fmt.Fprintf(tw, "load\tcapacity search over %s: goodput share >= %s, up to %d probes (the first at rate inf), concurrency %s, burstiness %s\n",
				c.Over, ftoa(100*c.GoodputShare)+"%", c.MaxProbes, conc, formatRate(m.Burstiness))
			fmt.Fprintf(tw, "arrivals\t%s .. %s at 1 req/s, divided by each probe's rate\n", s.FirstArrival, s.LastArrival)
		case m.SaturationShare > 0:
			fmt.Fprintf(tw, "load\tconcurrency %s, rate %s (saturation measured first at rate inf), burstiness %s\n", conc, ftoa(100*m.SaturationShare)+"%-of-saturation", formatRate(m.Burstiness))
			fmt.Fprintf(tw, "arrivals\t%s .. %s at 1 req/s, divided by the rate found\n", s.FirstArrival, s.LastArrival)
		default:
			fmt.Fprintf(tw, "load\tconcurrency %s, rate %s req/s, burstiness %s\n", conc, formatRate(m.Rate), formatRate(m.Burstiness))
			fmt.Fprintf(tw, "arrivals\t%s .. %s\n", s.FirstArrival, s.LastArrival)
		}
		fmt.Fprintf(tw, "trials\t%d to %d, timeout %s\n", m.Trials.Min, m.Trials.Max, m.Timeout)
		writeOptions(tw, m)
	}
	return tw.Flush()
}

// writeOptions prints the request options a cell sets, one line each,
// and nothing for those it leaves out (so older plans read the same).
// Header values from the environment are never printed, only the name
// of their variable.
func writeOptions(w io.Writer, m *Manifest) {
	if m.Trace != "" {
		fmt.Fprintf(w, "replay\tthe timestamps of %s (rate and burstiness unused)\n", m.Trace)
	}
	if r := m.RampUp; r != nil {
		fmt.Fprintf(w, "ramp-up\t%s from %s to %s req/s\n", r.Strategy, ftoa(r.StartRPS), ftoa(r.EndRPS))
	}
	for _, h := range m.Headers {
		if h.Env != "" {
			fmt.Fprintf(w, "header\t%s: (from $%s)\n", h.Name, h.Env)
		} else {
			fmt.Fprintf(w, "header\t%s: %s\n", h.Name, h.Value)
		}
	}
	if len(m.ExtraBody) > 0 {
		fmt.Fprintf(w, "extra body\t%s\n", m.ExtraBody)
	}
	if len(m.MetricPercentiles) > 0 {
		ps := make([]string, len(m.MetricPercentiles))
		for i, p := range m.MetricPercentiles {
			ps[i] = "p" + ftoa(p)
		}
		fmt.Fprintf(w, "percentiles\talso %s\n", strings.Join(ps, ", "))
	}
	for _, warn := range m.Warnings {
		fmt.Fprintf(w, "warning\t%s\n", warn)
	}
}

// writeCommandPlan prints a kind: command cell: what runs, not requests.
func writeCommandPlan(w io.Writer, m *Manifest) {
	fmt.Fprintf(w, "cell\t%s\n", m.Cell)
	fmt.Fprintf(w, "hash\t%s\n", m.Hash)
	fmt.Fprintf(w, "source\t%s\n", m.Source)
	fmt.Fprintf(w, "kind\tcommand (one run per trial, no requests)\n")
	fmt.Fprintf(w, "argv\t%q\n", m.Command.Argv)
	names := slices.Sorted(maps.Keys(m.Command.Env))
	for _, k := range names {
		fmt.Fprintf(w, "env\t%s=%s\n", k, m.Command.Env[k])
	}
	timeout := "1h (default)"
	if m.Timeout > 0 {
		timeout = m.Timeout.String()
	}
	fmt.Fprintf(w, "trials\t%d to %d, timeout %s per trial\n", m.Trials.Min, m.Trials.Max, timeout)
}

// planJSON is the --json form of a plan.
type planJSON struct {
	Cells []planCell `json:"cells"`
}

type planCell struct {
	Name     string        `json:"name"`
	Hash     string        `json:"hash"`
	Requests []planRequest `json:"requests"`
}

type planRequest struct {
	InputTokens int     `json:"input_tokens"`
	MaxTokens   int     `json:"max_tokens"`
	ArrivalS    float64 `json:"arrival_s"`
}

// WritePlanJSON prints {"cells": [{"name", "hash", "requests": [{"input_tokens",
// "max_tokens", "arrival_s"}]}]}.
func WritePlanJSON(w io.Writer, ms []*Manifest) error {
	p := planJSON{Cells: make([]planCell, 0, len(ms))}
	for _, m := range ms {
		c := planCell{Name: m.Cell, Hash: m.Hash, Requests: make([]planRequest, len(m.Requests))}
		for i, r := range m.Requests {
			c.Requests[i] = planRequest{InputTokens: r.InputTokens, MaxTokens: r.MaxTokens, ArrivalS: r.Arrival.Seconds()}
		}
		p.Cells = append(p.Cells, c)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}
