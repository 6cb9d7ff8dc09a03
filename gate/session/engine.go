package session

import (
	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/workload"
)

// Engine is the engine profile of a session: the configured one
// (server.engine, --engine), else, under auto, the one the launch command
// names ("vllm serve ...", "python -m sglang.launch_server ..."), else
// auto: the load generator asks the server once it is ready. The error
// is engine.Parse's; the caller names the setting.
func Engine(configured string, argv []string) (engine.Name, error) {
	n, err := engine.Parse(configured)
	if err != nil {
		return "", err
	}
	if n == engine.Auto {
		if from, ok := engine.FromArgv(argv); ok {
			return from, nil
		}
	}
	return n, nil
}

// GPUs is the GPU count of workloads that set none: the configured one,
// else what the launch command asks for (tensor- times data-parallel
// degree, engine.Launch.GPUs), else 0 (unknown).
func GPUs(configured int, argv []string) int {
	if configured > 0 {
		return configured
	}
	if n, ok := engine.FromArgv(argv); ok {
		return engine.Must(n).Launch.GPUs(argv)
	}
	return 0
}

// DefaultGPUs gives the workloads that set no gpus of their own the
// count gpus, so their results record it as server.gpus and carry the
// *_per_gpu throughputs. The count is not part of a cell's hash, so this
// never changes which baseline a cell matches.
func DefaultGPUs(ms []*workload.Manifest, gpus int) {
	if gpus <= 0 {
		return
	}
	for _, m := range ms {
		if m.GPUs == 0 {
			m.GPUs = gpus
		}
	}
}
