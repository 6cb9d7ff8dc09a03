package engine

// Profiler is how an engine is profiled with the torch profiler: POST
// Start, run the load, POST Stop, and the engine writes a Chrome trace
// (gzipped or not) into the directory its DirEnv variable names. The
// endpoints exist only while that variable is set when the server starts,
// so a server launched without it answers 404; docs/engines.md cites the
// engines' sources.
type Profiler struct {
	Start, Stop Endpoint
	// DirEnv is the environment variable naming the trace directory.
	DirEnv string
	// Enable says how the server must be started to serve the endpoints.
	Enable string
}

// vllmProfiler: vLLM's api_server registers /start_profile and
// /stop_profile when VLLM_TORCH_PROFILER_DIR is set (newer versions also
// take --profiler-config '{"profiler":"torch","torch_profiler_dir":DIR}').
var vllmProfiler = &Profiler{
	Start: Endpoint{"POST", "/start_profile"}, Stop: Endpoint{"POST", "/stop_profile"},
	DirEnv: "VLLM_TORCH_PROFILER_DIR",
	Enable: "start vLLM with VLLM_TORCH_PROFILER_DIR=DIR (newer versions: --profiler-config '{\"profiler\":\"torch\",\"torch_profiler_dir\":\"DIR\"}') and set profiling.dir to DIR",
}

// sglangProfiler: SGLang serves the endpoints always and writes to
// SGLANG_TORCH_PROFILER_DIR (/tmp when unset).
var sglangProfiler = &Profiler{
	Start: Endpoint{"POST", "/start_profile"}, Stop: Endpoint{"POST", "/stop_profile"},
	DirEnv: "SGLANG_TORCH_PROFILER_DIR",
	Enable: "start SGLang with SGLANG_TORCH_PROFILER_DIR=DIR and set profiling.dir to DIR",
}
