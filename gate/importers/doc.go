// Package importers turns other benchmark tools' result files into
// perfgate results, so runs made with GuideLLM, GenAI-Perf, AIPerf,
// inference-perf or `vllm bench sweep` can be gated like perfgate's own.
//
// Each tool's parser reads its file format into Runs: one benchmark run at
// one load point, with the metrics the file has mapped onto perfgate's ids
// (units converted: seconds to milliseconds, per-minute to per-second), the
// ids the format has no value for listed in Lacks, and the per-request
// records where the file keeps them. Build groups Runs of the same load
// shape into one cell each, one trial per run. A cell's identity is its
// load shape (result.Bench, the kind vLLM imports use), so an import
// matches a perfgate-native cell of the same workload (result.SameWorkload)
// and another tool's import of the same shape.
//
// The package reads bytes it is given; files and directories are the
// command's business (gate/cli import_*.go).
package importers
