// Package server starts the candidate server perfgate benchmarks, waits
// until it is ready, notices when it dies and stops it with everything it
// spawned. On a GPU runner the gate must own the server's lifetime: a server
// that dies mid-run makes the run fail (exit 3) with the end of its log, and
// no engine worker may outlive the job holding GPU memory.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/server/fingerprint"
)

// Config says how to launch the server (the server.* settings).
type Config struct {
	// Command is the argv to run, e.g. ["vllm", "serve", "Qwen/Qwen3-8B"].
	Command []string
	// Env is added to BaseEnv (server.env); it wins on conflicts.
	Env map[string]string
	// BaseEnv is the environment the server inherits ("NAME=value"),
	// less the CI credentials (see CICredential). The CLI passes
	// os.Environ(); the library never reads it itself.
	BaseEnv []string
	// Workdir is the server's working directory; empty: the current one.
	Workdir string
	// URL is the server's base URL (server.url). Empty: the first address
	// the server announces on stdout or stderr ("Uvicorn running on
	// http://0.0.0.0:8000", or `perfgate sim`'s first line).
	URL string
	// ReadyTimeout bounds the wait for readiness (model loading, CUDA graph
	// capture); DefaultReadyTimeout when zero.
	ReadyTimeout time.Duration
	// Log is a file receiving the server's stdout and stderr; empty: the
	// output is only kept in memory for the tail.
	Log string
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL;
	// DefaultStopGrace when zero.
	StopGrace time.Duration
	// APIKey is sent as "Authorization: Bearer" on the readiness and
	// health probes (vLLM started with --api-key guards /v1/models) and
	// is scrubbed from the log tail.
	APIKey string
	// Secrets are further values the log tail hides: the values of
	// workload request headers read from the environment, which a server
	// that logs the headers it receives prints whatever their variable's
	// name.
	Secrets []string
	// Hints, when set, receives a line every half minute while readiness
	// is awaited, saying what perfgate waits for.
	Hints io.Writer
	// Engine is the server's engine profile (server.engine); "" or auto
	// reads it from Command (engine.FromArgv) where the command is an
	// engine's own, else the default protocol applies. The profile's
	// health path is what readiness probes: ollama has none, so it is
	// ready the moment /v1/models lists a model.
	Engine engine.Name
}

// Defaults for Config.
const (
	DefaultReadyTimeout = 10 * time.Minute
	DefaultStopGrace    = 10 * time.Second
	// tailBytes of log are kept in memory for error reports.
	tailBytes = 64 << 10
)

// Process is a launched server.
type Process struct {
	cmd   *exec.Cmd
	pgid  int
	log   *logBuffer
	file  *os.File
	grace time.Duration
	url   string
	info  Info // set by Ready

	apiKey string
	hints  io.Writer
	engine engine.Name

	done    chan struct{}
	waitErr error // set before done is closed

	stopOnce sync.Once
	stopErr  error
}

// ExitError says that the server exited (or was killed) on its own. Tail
// holds the last lines of its log.
type ExitError struct {
	Err  error // from exec.Cmd.Wait; nil for exit status 0
	Tail string
}

func (e *ExitError) Error() string {
	what := "exited with status 0"
	if e.Err != nil {
		what = e.Err.Error()
	}
	return "server " + what
}

func (e *ExitError) Unwrap() error { return e.Err }

// Start launches cfg.Command in its own process group, so Stop can signal
// every process it spawns (vLLM starts engine-core and worker processes).
// It returns once the process is started, not ready: call Ready.
func Start(cfg Config) (*Process, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("server.command is empty")
	}
	var file *os.File
	if cfg.Log != "" {
		f, err := os.OpenFile(cfg.Log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("server.log: %w", err)
		}
		file = f
	}
	var w io.Writer
	if file != nil {
		w = file
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = serverEnv(cfg.BaseEnv, cfg.Env)
	cmd.Dir = cfg.Workdir
	cmd.SysProcAttr = sysProcAttr()
	log := newLogBuffer(w, tailBytes, scrubberFor(cfg))
	cmd.Stdout = log
	cmd.Stderr = log
	grace := cfg.StopGrace
	if grace <= 0 {
		grace = DefaultStopGrace
	}
	// A grandchild that keeps the output pipe open must not block Wait
	// forever once the group is gone.
	cmd.WaitDelay = grace
	p := &Process{cmd: cmd, log: log, file: file, grace: grace, url: cfg.URL, done: make(chan struct{}),
		apiKey: cfg.APIKey, hints: cfg.Hints, engine: launchEngine(cfg)}
	started := make(chan error, 1)
	startAndWait(cmd, started, func(err error) {
		p.waitErr = err
		close(p.done)
	})
	if err := <-started; err != nil {
		if file != nil {
			file.Close()
		}
		return nil, fmt.Errorf("server.command %s: %w", fingerprint.JoinArgv(redact.Argv(cfg.Command[:1])), err)
	}
	p.pgid = cmd.Process.Pid
	return p, nil
}

// mergeEnv returns base with overrides applied, overrides in sorted order
// so the child's environment is deterministic.
func mergeEnv(base []string, overrides map[string]string) []string {
	out := make([]string, 0, len(base)+len(overrides))
	for _, kv := range base {
		name := kv
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				name = kv[:i]
				break
			}
		}
		if _, over := overrides[name]; !over {
			out = append(out, kv)
		}
	}
	names := slices.Sorted(maps.Keys(overrides))
	for _, k := range names {
		out = append(out, k+"="+overrides[k])
	}
	return out
}

// Pid is the server's process id, also its process group id.
func (p *Process) Pid() int { return p.pgid }

// Err returns nil while the server runs, and an *ExitError after it exited.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return &ExitError{Err: p.waitErr, Tail: p.Tail(tailLines)}
	default:
		return nil
	}
}

// Tail returns the last n lines of the server's output with every known
// secret scrubbed (see scrubberFor).
func (p *Process) Tail(n int) string { return p.log.Tail(n) }

// Stop ends the server: SIGTERM to the whole process group, SIGKILL after
// the grace period, then waits for the process. Processes of the group that
// outlive the leader (workers of a crashed server) are killed as well. It
// is safe to call more than once and after the server died.
func (p *Process) Stop() error { return p.StopWithin(p.grace) }

// StopWithin is Stop with grace in place of Config.StopGrace (at most
// that): after an interrupt perfgate has seconds, not the server's usual
// shutdown time, before it must have written its results.
func (p *Process) StopWithin(grace time.Duration) error {
	p.stopOnce.Do(func() {
		p.stopErr = p.stop(min(grace, p.grace))
	})
	return p.stopErr
}

// InterruptStopGrace is the grace a launched server gets after perfgate was
// interrupted (see StopWithin).
const InterruptStopGrace = time.Second

func (p *Process) stop(grace time.Duration) error {
	_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
		<-p.done
	}
	// The leader is gone; give the rest of its group the same grace.
	deadline := time.Now().Add(grace)
	for groupAlive(p.pgid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var errs []error
	if p.file != nil {
		p.log.flush()
		if err := p.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("server.log: %w", err))
		}
	}
	if err := p.log.err(); err != nil {
		errs = append(errs, fmt.Errorf("server.log: %w", err))
	}
	return errors.Join(errs...)
}

// Wait blocks until ctx ends or the server exits, whichever comes first,
// and returns the server's *ExitError if it exited.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}
