package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

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
	keys := slices.Sorted(maps.Keys(m))
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
