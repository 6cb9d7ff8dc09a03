package benchcli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/redact"
)

// Options tune FromVLLM.
type Options struct {
	// Name is the workload's name (required).
	Name string
	// NoModel leaves --model out, so the workload requests the server's
	// first model as the shipped workloads do.
	NoModel bool
	// SHA256 returns a dataset file's hash for --dataset-path (the command
	// reads the file); nil: the YAML gets no sha256 and the result says so.
	SHA256 func(path string) (string, error)
}

// Translation is a workload file made from a command line, and what of the
// command line it does not carry.
type Translation struct {
	YAML string
	// Ignored are flags about where and how to run, not what to send
	// (--base-url, --save-result): no workload holds them.
	Ignored []string
	// Unsupported are flags perfgate cannot express, with why.
	Unsupported []string
	// Notes say where the workload differs from what vLLM's client sends.
	Notes []string
}

// ignored are vllm bench serve's flags that are not workload facts.
var ignored = map[string]string{
	"--base-url": "", "--host": "", "--port": "", "--save-result": "", "--save-detailed": "", "--result-dir": "",
	"--result-filename": "", "--append-result": "", "--label": "", "--metadata": "", "--disable-tqdm": "",
	"--tokenizer": "", "--tokenizer-mode": "", "--trust-remote-code": "", "--percentile-metrics": "",
	"--ready-check-timeout-sec": "", "--request-id-prefix": "", "--profile": "", "--plot-timeline": "",
	"--dataset-name": "", // read, never ignored; listed so the loop below skips it
}

// handled are the flags FromVLLM translates.
var handled = map[string]bool{
	"--dataset-name": true, "--dataset-path": true, "--random-input-len": true, "--random-output-len": true,
	"--random-range-ratio": true, "--random-prefix-len": true, "--prefix-repetition-prefix-len": true,
	"--prefix-repetition-suffix-len": true, "--prefix-repetition-num-prefixes": true, "--prefix-repetition-output-len": true,
	"--sharegpt-output-len": true, "--custom-output-len": true, "--num-prompts": true, "--request-rate": true,
	"--burstiness": true, "--max-concurrency": true, "--ramp-up-strategy": true, "--ramp-up-start-rps": true,
	"--ramp-up-end-rps": true, "--seed": true, "--endpoint": true, "--backend": true, "--endpoint-type": true,
	"--model": true, "--served-model-name": true, "--temperature": true, "--top-p": true, "--top-k": true,
	"--min-p": true, "--frequency-penalty": true, "--presence-penalty": true, "--repetition-penalty": true,
	"--ignore-eos": true, "--goodput": true, "--metric-percentiles": true, "--extra-body": true, "--header": true,
	"--num-warmups": true,
}

// FromVLLM turns a `vllm bench serve` command line into a workload file.
// vLLM's defaults apply where the line is silent (random dataset 1024/128,
// 1000 prompts, rate inf, burstiness 1, seed 0, temperature 0), so the file
// says everything the command meant. Errors name the flag.
func FromVLLM(argv []string, opts Options) (Translation, error) {
	var t Translation
	if opts.Name == "" {
		return t, fmt.Errorf("a workload name is required (--name)")
	}
	a, err := parseArgs(argv)
	if err != nil {
		return t, err
	}
	for _, f := range a.order {
		if _, ok := ignored[f]; ok && f != "--dataset-name" {
			t.Ignored = append(t.Ignored, f)
		} else if !handled[f] {
			t.Unsupported = append(t.Unsupported, f+": perfgate has no equivalent setting; the workload sends requests without it")
		}
	}
	w := &writer{}
	w.line("# Written by perfgate workload from-cli from:")
	w.line("#   " + commentLine(argv))
	w.kv("name", opts.Name)
	api, err := endpointAPI(a)
	if err != nil {
		return t, err
	}
	w.kv("api", api)
	model := cmp.Or(a.last("--served-model-name"), a.last("--model"))
	if model != "" && !opts.NoModel {
		w.kv("model", quote(model))
	}
	if err := datasetBlock(w, a, api, opts, &t); err != nil {
		return t, err
	}
	if err := loadBlock(w, a); err != nil {
		return t, err
	}
	if err := samplingBlock(w, a, &t); err != nil {
		return t, err
	}
	if err := requestBlocks(w, a, &t.Notes); err != nil {
		return t, err
	}
	t.YAML = w.String()
	return t, nil
}

func endpointAPI(a Args) (string, error) {
	ep := cmp.Or(a.last("--endpoint"), "/v1/completions")
	backend := a.last("--backend")
	switch {
	case strings.Contains(backend, "chat") || strings.HasSuffix(ep, "/chat/completions") || a.last("--endpoint-type") == "openai-chat":
		return "chat", nil
	case strings.HasSuffix(ep, "/completions"):
		return "completions", nil
	}
	return "", fmt.Errorf("--endpoint %s: perfgate sends /v1/completions or /v1/chat/completions", ep)
}

// datasetBlock writes dataset: for the kinds perfgate generates or reads.
func datasetBlock(w *writer, a Args, api string, opts Options, t *Translation) error {
	kind := cmp.Or(a.last("--dataset-name"), "random")
	seed, err := intFlag(a, "--seed", 0)
	if err != nil {
		return err
	}
	w.line("dataset:")
	switch kind {
	case "random":
		in, err1 := intFlag(a, "--random-input-len", 1024)
		out, err2 := intFlag(a, "--random-output-len", 128)
		prefix, err3 := intFlag(a, "--random-prefix-len", 0)
		ratio, err4 := numFlag(a, "--random-range-ratio", 0)
		if err := cmp.Or(err1, err2, err3, err4); err != nil {
			return err
		}
		w.kv2("kind", "random")
		w.kv2("input_tokens", itoa(in))
		w.kv2("output_tokens", itoa(out))
		if prefix > 0 {
			w.kv2("prefix_tokens", itoa(prefix))
		}
		w.kv2("range_ratio", ftoa(ratio))
	case "prefix_repetition":
		p, err1 := intFlag(a, "--prefix-repetition-prefix-len", 256)
		s, err2 := intFlag(a, "--prefix-repetition-suffix-len", 256)
		n, err3 := intFlag(a, "--prefix-repetition-num-prefixes", 10)
		o, err4 := intFlag(a, "--prefix-repetition-output-len", 128)
		if err := cmp.Or(err1, err2, err3, err4); err != nil {
			return err
		}
		w.kv2("kind", "prefix-repetition")
		w.kv2("prefix_tokens", itoa(p))
		w.kv2("num_prefixes", itoa(n))
		w.kv2("input_tokens", itoa(s))
		w.kv2("output_tokens", itoa(o))
	case "sharegpt", "custom":
		p := a.last("--dataset-path")
		if p == "" {
			return fmt.Errorf("--dataset-name %s needs --dataset-path", kind)
		}
		w.kv2("kind", kind)
		w.kv2("path", quote(p))
		if opts.SHA256 != nil {
			sum, err := opts.SHA256(p)
			if err != nil {
				return fmt.Errorf("--dataset-path %s: %w (perfgate pins dataset files by sha256)", p, err)
			}
			w.kv2("sha256", sum)
		}
		lenFlag := map[string]string{"sharegpt": "--sharegpt-output-len", "custom": "--custom-output-len"}[kind]
		if a.has(lenFlag) {
			o, err := intFlag(a, lenFlag, 0)
			if err != nil {
				return err
			}
			w.kv2("output_tokens", itoa(o))
		}
	default:
		return fmt.Errorf("--dataset-name %s: perfgate generates random and prefix_repetition and reads sharegpt and custom files", kind)
	}
	w.kv2("seed", itoa(seed))
	if kind == "random" || kind == "prefix_repetition" {
		t.Notes = append(t.Notes, "prompts: perfgate draws token ids 1000-29999 (text words on chat), not vLLM's draw from the model's tokenizer: the same lengths and seed, different tokens")
	}
	return nil
}

func loadBlock(w *writer, a Args) error {
	n, err := intFlag(a, "--num-prompts", 1000)
	if err != nil {
		return err
	}
	w.line("load:")
	w.kv2("requests", itoa(n))
	if a.has("--max-concurrency") {
		c, err := intFlag(a, "--max-concurrency", 0)
		if err != nil {
			return err
		}
		w.kv2("concurrency", itoa(c))
	}
	rate := cmp.Or(a.last("--request-rate"), "inf")
	if strings.EqualFold(rate, "inf") {
		rate = "inf"
	} else if _, err := strconv.ParseFloat(rate, 64); err != nil {
		return fmt.Errorf("--request-rate %q: want a number or inf", rate)
	}
	if !a.has("--ramp-up-strategy") {
		w.kv2("rate", rate)
	}
	b, err := numFlag(a, "--burstiness", 1)
	if err != nil {
		return err
	}
	w.kv2("burstiness", ftoa(b))
	if s := a.last("--ramp-up-strategy"); s != "" {
		lo, err1 := numFlag(a, "--ramp-up-start-rps", 0)
		hi, err2 := numFlag(a, "--ramp-up-end-rps", 0)
		if err := cmp.Or(err1, err2); err != nil {
			return err
		}
		w.line(fmt.Sprintf("  ramp_up: {strategy: %s, start_rps: %s, end_rps: %s}", quote(s), ftoa(lo), ftoa(hi)))
	}
	return nil
}

func samplingBlock(w *writer, a Args, t *Translation) error {
	temp, err := numFlag(a, "--temperature", 0) // vLLM's client defaults to greedy
	if err != nil {
		return err
	}
	parts := []string{"temperature: " + ftoa(temp)}
	for _, f := range []struct{ flag, key string }{
		{"--top-p", "top_p"}, {"--top-k", "top_k"}, {"--min-p", "min_p"}, {"--frequency-penalty", "frequency_penalty"},
		{"--presence-penalty", "presence_penalty"}, {"--repetition-penalty", "repetition_penalty"},
	} {
		if a.has(f.flag) {
			x, err := numFlag(a, f.flag, 0)
			if err != nil {
				return err
			}
			parts = append(parts, f.key+": "+ftoa(x))
		}
	}
	kind := cmp.Or(a.last("--dataset-name"), "random")
	ignoreEOS := a.has("--ignore-eos") || kind == "random"
	if ignoreEOS && !a.has("--ignore-eos") {
		t.Notes = append(t.Notes, "ignore_eos: true, as vLLM's random dataset forces it")
	}
	parts = append(parts, "ignore_eos: "+strconv.FormatBool(ignoreEOS))
	w.line("sampling: {" + strings.Join(parts, ", ") + "}")
	if a.has("--num-warmups") {
		n, err := intFlag(a, "--num-warmups", 0)
		if err != nil {
			return err
		}
		w.kv("warmups", itoa(n))
	}
	return nil
}

// requestBlocks writes slo, metric_percentiles, extra_body and headers.
func requestBlocks(w *writer, a Args, notes *[]string) error {
	if g := a.values["--goodput"]; len(g) > 0 {
		var parts []string
		for _, kv := range g {
			k, v, ok := strings.Cut(kv, ":")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || !(x > 0) {
				return fmt.Errorf("--goodput %s: want ttft:MS, tpot:MS or e2el:MS", kv)
			}
			switch k {
			case "ttft", "tpot", "e2el":
				parts = append(parts, k+"_ms: "+ftoa(x))
			default:
				return fmt.Errorf("--goodput %s: want ttft, tpot or e2el", kv)
			}
		}
		w.line("slo: {" + strings.Join(parts, ", ") + "}")
	}
	if p := a.last("--metric-percentiles"); p != "" {
		var xs []string
		for _, s := range strings.Split(p, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(x > 0 && x < 100) {
				return fmt.Errorf("--metric-percentiles %s: want numbers in (0, 100) separated by commas", p)
			}
			xs = append(xs, ftoa(x))
		}
		w.line("metric_percentiles: [" + strings.Join(xs, ", ") + "]")
	}
	if eb := a.last("--extra-body"); eb != "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(eb), &m); err != nil {
			return fmt.Errorf("--extra-body: not a JSON object: %w", err)
		}
		b, _ := json.Marshal(m) // sorted keys; JSON is YAML
		w.kv("extra_body", string(b))
	}
	if hs := a.values["--header"]; len(hs) > 0 {
		m := map[string]string{}
		for _, h := range hs {
			k, v, ok := strings.Cut(h, "=")
			if !ok || k == "" {
				return fmt.Errorf("--header %s: want KEY=VALUE", h)
			}
			m[k] = v
		}
		keys := slices.Sorted(maps.Keys(m))
		w.line("headers:")
		for _, k := range keys {
			if redact.Name(k) || redact.Text(m[k]) != m[k] {
				// The value is a credential: it goes into the runner's
				// environment, never into a committed file.
				w.kv2(k, "{env: "+envName(k)+"}")
				*notes = append(*notes, fmt.Sprintf("header %s: its value is a credential, so the workload reads it from %s at run time; set that variable in the runner's environment", k, envName(k)))
				continue
			}
			b, _ := json.Marshal(m[k])
			w.kv2(k, string(b))
		}
	}
	return nil
}
