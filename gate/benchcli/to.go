package benchcli

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// ToVLLM turns one cell's spec into the `vllm bench serve` arguments that
// send the same load: dataset and lengths, seed, requests, rate,
// burstiness, concurrency, ramp-up, endpoint, model, sampling, SLOs,
// percentiles, extra body and headers. What vLLM's client cannot express
// (token-id ranges, trace replay, text prompts calibrated to a tokenizer,
// secret headers) is returned in lost, one line each, so the caller says
// so. Flags where vLLM's default is the value are written anyway: the
// line must not depend on the client version's defaults.
func ToVLLM(s result.Spec) (argv []string, lost []string, err error) {
	if s.Kind != result.KindServing && s.Kind != "" {
		return nil, nil, fmt.Errorf("cell %s is a %s cell: only serving cells have a vllm bench serve equivalent", s.Cell, s.Kind)
	}
	if s.Load.SaturationShare > 0 {
		return nil, nil, fmt.Errorf("cell %s: its rate is a share of saturation, chosen at run time", s.Cell)
	}
	add := func(flag string, vals ...string) { argv = append(argv, append([]string{flag}, vals...)...) }
	argv = []string{"vllm", "bench", "serve"}
	if s.Model != "" {
		add("--model", s.Model)
	}
	if s.API == "chat" {
		add("--backend", "openai-chat")
		add("--endpoint", "/v1/chat/completions")
	} else {
		add("--backend", "openai")
		add("--endpoint", "/v1/completions")
	}
	d := s.Dataset
	switch d.Kind {
	case "random":
		add("--dataset-name", "random")
		add("--random-input-len", itoa(d.InputTokens))
		add("--random-output-len", itoa(d.OutputTokens))
		add("--random-range-ratio", ftoa(d.RangeRatio))
		if d.PrefixTokens > 0 {
			add("--random-prefix-len", itoa(d.PrefixTokens))
		}
	case "prefix-repetition":
		add("--dataset-name", "prefix_repetition")
		add("--prefix-repetition-prefix-len", itoa(d.PrefixTokens))
		add("--prefix-repetition-suffix-len", itoa(d.InputTokens))
		add("--prefix-repetition-num-prefixes", itoa(d.NumPrefixes))
		add("--prefix-repetition-output-len", itoa(d.OutputTokens))
	case "sharegpt", "custom":
		add("--dataset-name", d.Kind)
		add("--dataset-path", d.Path)
		if d.OutputTokens > 0 {
			add("--"+d.Kind+"-output-len", itoa(d.OutputTokens))
		}
	default:
		return nil, nil, fmt.Errorf("cell %s: dataset %s has no vllm bench serve equivalent perfgate can write", s.Cell, d.Kind)
	}
	add("--seed", strconv.FormatUint(d.Seed, 10))
	if d.TokenIDs != nil && d.Kind != "sharegpt" && d.Kind != "custom" {
		lost = append(lost, fmt.Sprintf("token ids %d-%d: vLLM draws prompt tokens from the model's tokenizer (same lengths, other tokens)", d.TokenIDs.Min, d.TokenIDs.Max))
	}
	if d.PromptFormat == "text" {
		lost = append(lost, "prompt_format text: perfgate's word prompts calibrated to the server's tokenizer; vLLM's client sends its own")
	}
	add("--num-prompts", itoa(s.Load.Requests))
	if s.Load.Concurrency > 0 {
		add("--max-concurrency", itoa(s.Load.Concurrency))
	}
	if r := s.Load.RampUp; r != nil {
		add("--ramp-up-strategy", r.Strategy)
		add("--ramp-up-start-rps", ftoa(r.StartRPS))
		add("--ramp-up-end-rps", ftoa(r.EndRPS))
	} else {
		add("--request-rate", result.FormatRate(s.Load.Rate))
	}
	if !math.IsInf(s.Load.Burstiness, 1) && s.Load.Burstiness > 0 {
		add("--burstiness", ftoa(s.Load.Burstiness))
	} else if math.IsInf(s.Load.Burstiness, 1) {
		lost = append(lost, "burstiness inf (evenly spaced arrivals): vLLM's --burstiness takes a finite gamma shape; a large one (1000) is nearly even")
	}
	samplingArgs(s.Sampling, add, &lost)
	if s.SLO.Set() {
		var g []string
		for _, x := range []struct {
			k string
			v float64
		}{{"ttft", s.SLO.TTFTms}, {"tpot", s.SLO.TPOTms}, {"e2el", s.SLO.E2ELms}} {
			if x.v > 0 {
				g = append(g, x.k+":"+ftoa(x.v))
			}
		}
		add("--goodput", g...)
	}
	if len(s.MetricPercentiles) > 0 {
		ps := make([]string, len(s.MetricPercentiles))
		for i, p := range s.MetricPercentiles {
			ps[i] = ftoa(p)
		}
		add("--metric-percentiles", strings.Join(ps, ","))
	}
	if len(s.ExtraBody) > 0 {
		add("--extra-body", string(s.ExtraBody))
	}
	var hs []string
	for _, h := range s.Headers {
		if h.Env != "" {
			lost = append(lost, fmt.Sprintf("header %s: its value is the secret in $%s; add --header \"%s=$%s\" yourself", h.Name, h.Env, h.Name, h.Env))
			continue
		}
		hs = append(hs, h.Name+"="+h.Value)
	}
	sort.Strings(hs)
	if len(hs) > 0 {
		add("--header", hs...)
	}
	add("--percentile-metrics", "ttft,tpot,itl,e2el")
	add("--num-warmups", itoa(s.Warmups))
	return argv, lost, nil
}

func samplingArgs(sp result.Sampling, add func(string, ...string), lost *[]string) {
	temp := 0.0
	if sp.Temperature != nil {
		temp = *sp.Temperature
	}
	add("--temperature", ftoa(temp))
	f := func(flag string, p *float64) {
		if p != nil {
			add(flag, ftoa(*p))
		}
	}
	f("--top-p", sp.TopP)
	if sp.TopK != nil {
		add("--top-k", itoa(*sp.TopK))
	}
	f("--min-p", sp.MinP)
	f("--frequency-penalty", sp.FrequencyPenalty)
	f("--presence-penalty", sp.PresencePenalty)
	f("--repetition-penalty", sp.RepetitionPenalty)
	if sp.IgnoreEOS {
		add("--ignore-eos")
	}
	if sp.Seed != nil || sp.MinTokens > 0 {
		body := map[string]any{}
		if sp.Seed != nil {
			body["seed"] = *sp.Seed
		}
		if sp.MinTokens > 0 {
			body["min_tokens"] = sp.MinTokens
		}
		b, _ := json.Marshal(body)
		*lost = append(*lost, "sampling seed / min_tokens have no vllm bench serve flag: add --extra-body '"+string(b)+"'")
	}
}

// ShellLine quotes argv for a shell (single quotes where needed).
func ShellLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
