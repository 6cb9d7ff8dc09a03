// Package benchcli translates between `vllm bench serve` command lines and
// perfgate workload files, so a runbook's benchmark command becomes a
// frozen, gated workload (FromVLLM, `perfgate workload from-cli`) and a
// workload can be rerun with vLLM's own client (ToVLLM, `perfgate plan
// --as-vllm-cli`).
//
// Only what both describe is translated: dataset and lengths, seed, request
// count, rate, burstiness, concurrency, ramp-up, endpoint, model, sampling,
// SLOs, extra body, headers and percentiles. Flags that describe where and
// how to run (--base-url, --save-result, ...) are not part of a workload and
// are listed as ignored; flags perfgate cannot express are listed as
// unsupported, never silently dropped. The package does no I/O.
package benchcli
