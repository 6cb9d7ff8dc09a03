package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// The serving-benchmark facts follow the checklist reviewers of published
// vLLM benchmarks expect (docs/studies.md): model, server arguments,
// parallelism, KV cache dtype, NCCL and other environment, workload shape,
// successes, failures and error types, TTFT/TPOT/ITL/E2E percentiles,
// QPM, TPM, tok/s, warmups, and where the raw JSON is.

// factsVersions renders the facts for every compared workload, then only
// for regressed or undecided ones, then only the run-level facts, then
// nothing.
func factsVersions(d *Data) []string {
	if len(d.Candidates) == 0 && len(d.Baselines) == 0 {
		return []string{""}
	}
	run := runFacts(d)
	byW := gatedByWorkload(d.Comparison)
	var all, bad strings.Builder
	for _, w := range d.Comparison.Workloads {
		t := workloadFacts(d, w.Cell)
		all.WriteString(t)
		if o := workloadOutcome(byW[w.Cell]); o == verdict.Regression || o == verdict.Inconclusive || w.Status != verdict.Compared {
			bad.WriteString(t)
		}
	}
	const sum = "Serving benchmark facts (server, environment, workload shape, requests, latency percentiles, throughput)"
	return []string{
		details(sum, run+all.String()),
		details(sum, run+bad.String()),
		details(sum, run),
		"",
	}
}

// firstOf returns one result of the map, by sorted cell, for run-level
// facts that all cells share (one server per run).
func firstOf(m map[string]*result.Result) *result.Result {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return nil
	}
	return m[keys[0]]
}

// runFacts is a baseline-vs-candidate table of the server and environment.
func runFacts(d *Data) string {
	b, c := firstOf(d.Baselines), firstOf(d.Candidates)
	rows := []struct {
		name string
		get  func(*result.Result) string
	}{
		{"Model", func(r *result.Result) string { return r.Server.Model }},
		{"Served models", func(r *result.Result) string { return strings.Join(r.Server.Models, ", ") }},
		{"Server version", func(r *result.Result) string { return r.Server.Version }},
		{"Max model len", func(r *result.Result) string { return itoaOr(r.Server.MaxModelLen) }},
		{"GPUs", gpus},
		{"Server arguments", func(r *result.Result) string { return fp(r, argvKeys...) }},
		{"Parallelism", parallelism},
		{"KV cache dtype", func(r *result.Result) string {
			return orStr(fp(r, "server.kv_cache_dtype", "vllm.kv_cache_dtype"), flagValue(argv(r), "--kv-cache-dtype"))
		}},
		{"Quantization", func(r *result.Result) string {
			return orStr(fp(r, "server.quantization", "vllm.quantization"), flagValue(argv(r), "--quantization", "-q"))
		}},
		{"Environment (NCCL, CUDA, …)", envFacts},
		{"Other fingerprint", otherFingerprint},
		{"Measured by", func(r *result.Result) string {
			return strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version + " " + r.Source)
		}},
	}
	if engineOf(b) != "" || engineOf(c) != "" {
		// The engine profile decides what was sent and how /metrics were
		// read (docs/engines.md); results from before profiles have none.
		rows = slices.Insert(rows, 3, struct {
			name string
			get  func(*result.Result) string
		}{"Engine", engineOf})
	}
	var s strings.Builder
	n := armsOf(d)
	fmt.Fprintf(&s, "| | %s | %s |\n|---|---|---|\n", n.base, n.cand)
	for _, row := range rows {
		bv, cv := "", ""
		if b != nil {
			bv = row.get(b)
		}
		if c != nil {
			cv = row.get(c)
		}
		fmt.Fprintf(&s, "| %s | %s | %s |\n", row.name, factCell(bv), factCell(cv))
	}
	return s.String()
}

// engineOf is the engine profile r was measured with: the result's own
// record, else its fingerprint's.
func engineOf(r *result.Result) string {
	if r == nil {
		return ""
	}
	return orStr(r.Server.Engine, fp(r, result.KeyServerEngine))
}

// factCell escapes a fact; unknown facts say so rather than hiding the row.
func factCell(v string) string {
	if v == "" {
		return "not recorded"
	}
	return Escape(Truncate(v, 400))
}

func itoaOr(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fp returns the first fingerprint value present among keys, as shown.
func fp(r *result.Result, keys ...string) string {
	for _, k := range keys {
		if v := r.Fingerprint[k]; v != "" {
			return shown(k, v)
		}
	}
	return ""
}

// shown is a fingerprint value as a report may show it. perfgate records
// fingerprints with secrets hidden, but a result may come from an older
// perfgate or another tool, so the report applies gate/redact again: the
// server's command line word by word, env.* by the variable's name,
// anything else by its key's name and the shapes of credentials.
func shown(key, v string) string {
	if name, ok := strings.CutPrefix(key, result.EnvPrefix); ok {
		return redact.EnvValue(name, v)
	}
	switch {
	case slices.Contains(argvKeys, key):
		return redact.Value(v)
	case redact.Name(key) && v != "":
		return redact.Placeholder // meta.hf_token from an imported benchmark
	}
	return redact.Text(v)
}

func gpus(r *result.Result) string {
	name, count := fp(r, result.KeyGPUName), fp(r, result.KeyGPUCount)
	if count == "" && r.Server.GPUs > 0 {
		count = strconv.Itoa(r.Server.GPUs)
	}
	switch {
	case name != "" && count != "":
		return count + " × " + name
	case name != "":
		return name
	}
	return count
}

// argvKeys are the fingerprint keys that may hold the server's command
// line: result.KeyServerArgv, which perfgate writes, and the names other
// tools' fingerprints use.
var argvKeys = []string{result.KeyServerArgv, "server.args", "server.command"}

// argv returns the server's command line as words. The fingerprint may hold
// it as a JSON array or as a space-separated string.
func argv(r *result.Result) []string {
	raw := fp(r, argvKeys...)
	if strings.HasPrefix(raw, "[") {
		var words []string
		if json.Unmarshal([]byte(raw), &words) == nil {
			return words
		}
	}
	return strings.Fields(raw)
}

// flagValue finds --name value or --name=value in args.
func flagValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if strings.HasPrefix(a, n+"=") {
				return strings.TrimPrefix(a, n+"=")
			}
		}
	}
	return ""
}

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name {
			return true
		}
	}
	return false
}

// parallelism summarises TP/PP/DP/EP from the fingerprint or the command
// line ("TP 8, PP 1, EP on").
func parallelism(r *result.Result) string {
	args := argv(r)
	var parts []string
	for _, p := range []struct {
		label, key string
		flags      []string
	}{
		{"TP", "server.tensor_parallel_size", []string{"--tensor-parallel-size", "-tp"}},
		{"PP", "server.pipeline_parallel_size", []string{"--pipeline-parallel-size", "-pp"}},
		{"DP", "server.data_parallel_size", []string{"--data-parallel-size", "-dp"}},
	} {
		if v := orStr(fp(r, p.key), flagValue(args, p.flags...)); v != "" {
			parts = append(parts, p.label+" "+v)
		}
	}
	if hasFlag(args, "--enable-expert-parallel") || fp(r, "server.enable_expert_parallel") == "true" {
		parts = append(parts, "EP on")
	}
	return strings.Join(parts, ", ")
}

// envFacts lists the recorded environment variables (env.* keys).
func envFacts(r *result.Result) string {
	var kv []string
	for k, v := range r.Fingerprint {
		if name, ok := strings.CutPrefix(k, result.EnvPrefix); ok {
			kv = append(kv, name+"="+shown(k, v))
		}
	}
	sort.Strings(kv)
	return strings.Join(kv, ", ")
}

// otherFingerprint lists fingerprint keys no other row shows.
func otherFingerprint(r *result.Result) string {
	inRow := map[string]bool{result.KeyGPUName: true, result.KeyGPUCount: true, result.KeyServerArgv: true, "server.args": true, "server.command": true, result.KeyServerEngine: true,
		"server.kv_cache_dtype": true, "vllm.kv_cache_dtype": true, "server.quantization": true, "vllm.quantization": true,
		"server.tensor_parallel_size": true, "server.pipeline_parallel_size": true, "server.data_parallel_size": true, "server.enable_expert_parallel": true}
	var kv []string
	for k, v := range r.Fingerprint {
		if !inRow[k] && !strings.HasPrefix(k, result.EnvPrefix) {
			kv = append(kv, k+"="+shown(k, v))
		}
	}
	sort.Strings(kv)
	return strings.Join(kv, ", ")
}

// workloadFacts is one workload's shape, request outcomes, latency
// percentiles and throughput, baseline vs candidate (medians over valid
// trials).
func workloadFacts(d *Data, cell string) string {
	b, c := d.Baselines[cell], d.Candidates[cell]
	if b == nil && c == nil {
		return ""
	}
	var s strings.Builder
	n := armsOf(d)
	fmt.Fprintf(&s, "\n**%s**\n\n| | %s | %s |\n|---|--:|--:|\n", Escape(cell), n.base, n.cand)
	row := func(name string, get func(*result.Result) string) {
		fmt.Fprintf(&s, "| %s | %s | %s |\n", name, factOf(b, get), factOf(c, get))
	}
	row("Workload shape", shape)
	row("Warmup requests per trial", func(r *result.Result) string { return strconv.Itoa(r.Warmups) })
	row("Trials valid / run", func(r *result.Result) string {
		s := fmt.Sprintf("%d / %d", len(r.ValidTrials()), len(r.Trials))
		if !r.Complete {
			s += " (incomplete: " + r.IncompleteReason + ")"
		}
		return s
	})
	row("Requests succeeded / failed", func(r *result.Result) string {
		ok, failed := 0, 0
		for _, t := range r.Trials {
			ok += t.Completed
			failed += t.Failed
		}
		return fmt.Sprintf("%d / %d", ok, failed)
	})
	row("Error types", errorTypes)
	if (b != nil && tokenCounting(b) != "") || (c != nil && tokenCounting(c) != "") {
		row("Token counting", tokenCounting) // results before issue 11 have none
	}
	pcts := []metrics.Stat{metrics.Pct(50), metrics.Pct(90), metrics.Pct(95), metrics.Pct(99)}
	for _, dist := range []string{"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"} {
		label := strings.Fields(metrics.Label(metrics.ID{Base: dist, Stat: pcts[0]}.String()))[0]
		row(label+" p50 / p90 / p95 / p99", func(r *result.Result) string {
			var vs []string
			for _, p := range pcts {
				vs = append(vs, medianValue(r, metrics.ID{Base: dist, Stat: p}.String()))
			}
			if strings.Trim(strings.Join(vs, ""), "–") == "" {
				return ""
			}
			return strings.Join(vs, " / ") + " ms"
		})
	}
	for _, id := range []string{"qpm", "tpm", "output_throughput", "total_token_throughput", "request_goodput"} {
		m := metrics.MustLookup(id)
		row(m.ID+" ("+m.Unit+")", func(r *result.Result) string { return strings.Trim(medianValue(r, id), "–") })
	}
	fmt.Fprintf(&s, "| Raw JSON | %s | %s |\n", pathCell(d.BaselinePaths[cell]), pathCell(d.ResultPaths[cell]))
	return s.String()
}

func pathCell(p string) string {
	if p == "" {
		return "not recorded"
	}
	return Code(p)
}

// factOf applies get to r, escaping the result ("–" when r is nil).
func factOf(r *result.Result, get func(*result.Result) string) string {
	if r == nil {
		return "–"
	}
	return factCell(get(r))
}

// shape describes the workload as run: requests per trial, mean token
// lengths, and the load point from the workload spec when it has one.
func shape(r *result.Result) string {
	var parts []string
	if len(r.Trials) > 0 {
		t := r.Trials[0]
		parts = append(parts, fmt.Sprintf("%d requests", t.Completed+t.Failed))
		if t.Completed > 0 {
			in, out := t.Values["total_input_tokens"], t.Values["total_output_tokens"]
			if in > 0 || out > 0 {
				parts = append(parts, fmt.Sprintf("%.0f in / %.0f out tokens", in/float64(t.Completed), out/float64(t.Completed)))
			}
		}
	}
	if spec, err := r.Workload.ParseSpec(); err == nil {
		if l, ok := spec.Shape(); ok {
			conc := "unlimited"
			if l.Concurrency > 0 {
				conc = strconv.Itoa(l.Concurrency)
			}
			rate := "rate " + result.FormatRate(l.Rate)
			if r := l.RampUp; r != nil { // vLLM records rate inf beside a ramp
				rate = fmt.Sprintf("rate %s ramp %s to %s", r.Strategy, result.FormatRate(r.StartRPS), result.FormatRate(r.EndRPS))
			}
			parts = append(parts, "concurrency "+conc, rate)
		}
	}
	return strings.Join(parts, ", ")
}

// tokenCounting says how the trials counted each chunk's tokens (the
// methods of docs/metrics.md), whether itl_token_ms is approximated, and
// the mean tokens per chunk; "" for results that did not record it.
func tokenCounting(r *result.Result) string {
	methods := map[string]int{}
	var perChunk []float64
	approx := false
	for _, t := range r.Trials {
		if t.Tokens == nil {
			continue
		}
		methods[t.Tokens.Method]++
		perChunk = append(perChunk, t.Tokens.TokensPerChunk)
		approx = approx || t.Tokens.ITLTokenApprox
	}
	if len(perChunk) == 0 {
		return ""
	}
	names := make([]string, 0, len(methods))
	for m := range methods {
		names = append(names, m)
	}
	sort.Strings(names)
	s := strings.Join(names, ", ")
	if approx {
		s += " (itl_token_ms approximated)"
	}
	return s + fmt.Sprintf(", %.1f tokens per chunk", metrics.MedianOf(perChunk))
}

// errorTypes sums the failed requests by type over all trials.
func errorTypes(r *result.Result) string {
	sum := map[string]int{}
	for _, t := range r.Trials {
		for k, n := range t.Errors {
			sum[k] += n
		}
	}
	if len(sum) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		p := fmt.Sprintf("%s × %d", k, sum[k])
		for _, t := range r.Trials {
			if sample := t.ErrorSamples[k]; sample != "" {
				p += ": " + Truncate(redact.Text(sample), 120)
				break
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// medianValue is the median over valid trials of metric id, formatted.
func medianValue(r *result.Result, id string) string {
	v := r.Samples(id)
	if len(v) == 0 {
		return "–"
	}
	return Number(metrics.MedianOf(v))
}
