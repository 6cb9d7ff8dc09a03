// Package fingerprint records the facts about a machine and server that
// decide whether two benchmark results may be compared (GPU model and count,
// the model served) and the facts that explain a difference when they are
// (drivers, CUDA, vLLM version, NCCL and other environment variables). One
// published study traced a 48 % throughput gap between two machines to a
// single variable, NCCL_P2P_DISABLE; another compared TP4 x 2 with TP8.
//
// A fingerprint is a flat map of "group.key" strings, stored in result files.
package fingerprint

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// Keys written by Collect; the names are the result file's (package
// result owns the vocabulary). Environment variables are "env.<NAME>".
const (
	GPUName       = result.KeyGPUName
	GPUCount      = result.KeyGPUCount
	GPUDriver     = result.KeyGPUDriver
	GPUMemoryMiB  = result.KeyGPUMemoryMiB
	GPUMaxSMClock = result.KeyGPUMaxSMClock
	GPUPowerLimit = result.KeyGPUPowerLimit
	CUDAVersion   = result.KeyCUDAVersion
	VLLMVersion   = result.KeyVLLMVersion
	ServerModel   = result.KeyServerModel
	ServerArgv    = result.KeyServerArgv
	CPUModel      = result.KeyCPUModel
	Kernel        = result.KeyKernel
)

// EnvPrefixes are the environment variable prefixes recorded as env.<NAME>:
// communication (NCCL), engine (VLLM), CUDA and PyTorch settings.
var EnvPrefixes = []string{"NCCL_", "VLLM_", "CUDA_", "TORCH_", "PYTORCH_"}

// Runner runs a program and returns its standard output. It returns an
// error wrapping exec.ErrNotFound when the program is not installed.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Options are the sources Collect reads. Nil functions fall back to the
// real system (exec, os.ReadFile), except Environ: the library never reads
// the process environment itself, the caller passes os.Environ.
type Options struct {
	// Environ returns "NAME=value" pairs, as os.Environ does.
	Environ func() []string
	// ServerEnv overrides the environment for a server perfgate launched
	// (server.env), since that is what the server actually ran with.
	ServerEnv map[string]string
	// Run runs nvidia-smi and uname; nil uses os/exec with a timeout.
	Run Runner
	// ReadFile reads /proc files; nil uses os.ReadFile.
	ReadFile func(string) ([]byte, error)
	// ServerArgv is the launched server's command line, if perfgate
	// launched it; ServerVersion is what its /version said.
	ServerArgv    []string
	ServerVersion string
	Model         string
	// Engine is the engine profile of the run (server.engine); the
	// version of an engine other than vLLM is recorded as server.version.
	Engine string
}

// Collect gathers the fingerprint. Missing tools (no nvidia-smi on a CPU
// runner) leave their keys out; a tool that fails is reported in notes,
// because a fingerprint with gaps is still worth recording.
func Collect(ctx context.Context, o Options) (fp map[string]string, notes []string) {
	if o.Run == nil {
		o.Run = Exec
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	fp = map[string]string{}
	set := func(k, v string) {
		// One line per value: tools and servers may print CR, LF or
		// other control characters inside what should be a label.
		v = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, v)
		if v = strings.TrimSpace(v); v != "" {
			fp[k] = v
		}
	}
	gerr := gpus(ctx, o.Run, fp)
	if gerr != nil {
		notes = append(notes, gerr.Error())
	}
	// A hung nvidia-smi is not asked a second time (15 s more), nor is
	// one of a run that was interrupted.
	hung := errors.Is(gerr, context.DeadlineExceeded) || ctx.Err() != nil
	if out, err := askAgain(ctx, o.Run, !hung); err == nil {
		if m := cudaRe.FindSubmatch(out); m != nil {
			set(CUDAVersion, string(m[1]))
		}
	}
	env := environ(o.Environ, o.ServerEnv)
	for name, v := range env {
		if recorded(name) {
			fp[result.EnvPrefix+name] = redact.EnvValue(name, v)
		}
	}
	if _, ok := fp[CUDAVersion]; !ok {
		set(CUDAVersion, env["CUDA_VERSION"]) // NVIDIA's containers set it
	}
	if o.Engine == "" || o.Engine == string(engine.VLLM) {
		set(VLLMVersion, o.ServerVersion)
	} else {
		set(result.KeyServerVersion, o.ServerVersion)
	}
	set(result.KeyServerEngine, o.Engine)
	set(ServerModel, o.Model)
	if len(o.ServerArgv) > 0 {
		set(ServerArgv, JoinArgv(redact.Argv(o.ServerArgv)))
		launchFacts(o.ServerArgv, set)
	}
	if data, err := o.ReadFile("/proc/cpuinfo"); err == nil {
		set(CPUModel, cpuModel(data))
	}
	if data, err := o.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		set(Kernel, string(data))
	} else if out, err := o.Run(ctx, "uname", "-r"); err == nil {
		set(Kernel, string(out))
	}
	return fp, notes
}

// launchFacts records what an engine's own launch command says of its
// layout: the tensor-parallel degree, under the one key whatever the
// engine calls the flag (SGLang --tp-size, TGI --num-shard), so the
// report's parallelism row shows it for each. vLLM's flags the report
// reads from the argv itself, so vLLM fingerprints stay as they were.
func launchFacts(argv []string, set func(k, v string)) {
	n, ok := engine.FromArgv(argv)
	if !ok || n == engine.VLLM {
		return
	}
	l := engine.Must(n).Launch
	if len(l.TensorParallelFlags) == 0 {
		return
	}
	tp := l
	tp.DataParallelFlags = nil
	if g := tp.GPUs(argv); g > 0 {
		set(result.KeyTensorParallel, strconv.Itoa(g))
	}
}

// askAgain runs plain nvidia-smi (its banner names the CUDA version)
// when ok, else says it was not asked.
func askAgain(ctx context.Context, run Runner, ok bool) ([]byte, error) {
	if !ok {
		return nil, errors.New("nvidia-smi not asked again")
	}
	return run(ctx, "nvidia-smi")
}

var cudaRe = regexp.MustCompile(`CUDA Version:\s*([0-9][0-9.]*)`)

// gpuQuery is the nvidia-smi query; columns in gpuKeys order.
const gpuQuery = "name,driver_version,memory.total,clocks.max.sm,power.limit"

var gpuKeys = []string{GPUName, GPUDriver, GPUMemoryMiB, GPUMaxSMClock, GPUPowerLimit}

// gpus records the GPUs nvidia-smi lists. Values that differ between GPUs
// (a mixed machine) are joined with "; " in GPU order of first appearance.
func gpus(ctx context.Context, run Runner, fp map[string]string) error {
	out, err := run(ctx, "nvidia-smi", "--query-gpu="+gpuQuery, "--format=csv,noheader,nounits")
	if errors.Is(err, exec.ErrNotFound) {
		return nil // no NVIDIA driver here: nothing to record
	}
	if err != nil {
		return fmt.Errorf("fingerprint: nvidia-smi: %w", err)
	}
	r := csv.NewReader(bytes.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = len(gpuKeys)
	rows, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("fingerprint: nvidia-smi output: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	for col, key := range gpuKeys {
		var vals []string
		seen := map[string]bool{}
		for _, row := range rows {
			// A quoted CSV field may hold line breaks; a fingerprint value
			// is one line (compared key by key, printed in reports).
			v := strings.Join(strings.Fields(row[col]), " ")
			if v == "" || strings.HasPrefix(v, "[N/A]") || strings.HasPrefix(v, "[Not Supported]") || seen[v] {
				continue
			}
			seen[v] = true
			vals = append(vals, v)
		}
		if len(vals) > 0 {
			fp[key] = strings.Join(vals, "; ")
		}
	}
	fp[GPUCount] = strconv.Itoa(len(rows))
	return nil
}

// environ merges the process environment with the server's overrides.
func environ(env func() []string, overrides map[string]string) map[string]string {
	m := map[string]string{}
	if env != nil {
		for _, kv := range env() {
			if name, v, ok := strings.Cut(kv, "="); ok {
				m[name] = v
			}
		}
	}
	for k, v := range overrides {
		m[k] = v
	}
	return m
}

func recorded(name string) bool {
	for _, p := range EnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// JoinArgv joins argv for display, quoting arguments a shell would split.
func JoinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

func cpuModel(cpuinfo []byte) string {
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
