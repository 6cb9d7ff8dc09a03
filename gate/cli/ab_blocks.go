package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/command"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/workload"
)

// abExperiment runs the blocks of `perfgate ab` and holds what they
// produced: one result per (arm, workload cell), growing block by block,
// and the design (result.AB) every result file carries.
type abExperiment struct {
	s    *Streams
	ms   []*workload.Manifest
	arms [2]abArm
	// blockTrials is the number of measured trials of every cell per block.
	blockTrials int
	// lc is the load generator's configuration; each block sets its URL.
	lc loadgen.Config
	// launch holds the server settings shared by both arms (ready
	// timeout, workdir, log); each block sets the arm's command and env.
	launch serveLaunch
	// dir is the output directory: results go to dir/a and dir/b.
	dir string
	// resident holds one Trials per arm when the arms are servers already
	// up or kind: command benchmarks: nothing to restart between blocks.
	resident [2]pipeline.Trials
	runners  [2]*loadgen.Runner // the resident servers' load generators, to close

	results [2][]*result.Result // by arm, then manifest index
	// last is each arm's result that ran last: the cell a server failure
	// cut short.
	last   [2]*result.Result
	design result.AB
	fps    [2]*serveFingerprint
	// failure is the launched server's failure that stopped the
	// experiment, nil while none did; failedArm the arm it happened in.
	failure   *server.Failure
	failedArm int
	// look is the verdict look new trials are added in (Trial.Look: 0
	// for the first look's blocks).
	look int
}

// armIndex maps "A"/"B" of an order to the arm.
func armIndex(c byte) int {
	if c == 'B' || c == 'b' {
		return 1
	}
	return 0
}

// newABExperiment prepares the runners of arms that are not restarted
// per block.
func newABExperiment(s *Streams, ms []*workload.Manifest, arms [2]abArm, blockTrials int, lc loadgen.Config, launch serveLaunch, dir string, seed uint64) (*abExperiment, error) {
	x := &abExperiment{s: s, ms: ms, arms: arms, blockTrials: blockTrials, lc: lc, launch: launch, dir: dir,
		design: result.AB{Seed: seed, Blocks: []result.Block{}}}
	for i, a := range arms {
		x.results[i] = make([]*result.Result, len(ms))
		env, _ := server.ParseEnv(a.env) // abArms checked it
		x.fps[i] = &serveFingerprint{argv: a.command, env: env, scrub: headerScrubber(s)}
		switch {
		case gateServing(ms) && a.resident():
			cfg := lc
			cfg.URL, cfg.Engine = a.url, a.engine
			cfg.Hooks = serveHooks(a.url)
			r, err := loadgen.New(cfg)
			if err != nil {
				return nil, fmt.Errorf("--%s-url: %w", a.name, err)
			}
			// Capacity and share-of-saturation cells find their load at
			// run time, as perfgate gate runs them.
			x.resident[i], x.runners[i] = pipeline.Capacity{Serving: r, Log: s.Err}, r
		case !gateServing(ms):
			x.resident[i] = &command.Trials{Dir: filepath.Join(dir, a.name, "commands"), BaseEnv: os.Environ(), ToolVersion: Version}
		}
	}
	return x, nil
}

// close releases the resident runners' connections.
func (x *abExperiment) close() {
	for _, r := range x.runners {
		if r != nil {
			r.Close()
		}
	}
}

// run runs the blocks order[from:] of the design, appending to Order as
// each block starts. It stops at the first failure: a launched server that
// failed (x.failure is then set) or a run error; the results so far are
// written either way.
func (x *abExperiment) run(ctx context.Context, order string, from int) error {
	for i := from; i < len(order); i++ {
		arm := armIndex(order[i])
		b := result.Block{Index: i + 1, Arm: x.arms[arm].name, StartedAt: time.Now().UTC(), Trials: x.blockTrials}
		x.design.Order = order[:i+1]
		fmt.Fprintf(x.s.Err, "ab: block %d of %d: arm %s\n", i+1, len(order), b.Arm)
		startup, err := x.block(ctx, arm, &b)
		b.StartupS = startup.Seconds()
		x.design.Blocks = append(x.design.Blocks, b)
		if werr := x.write(false); werr != nil {
			return werr
		}
		if err != nil {
			return fmt.Errorf("block %d of %d (arm %s): %w", i+1, len(order), b.Arm, err)
		}
	}
	return nil
}

// block runs one block of arm: restarts its server when it is launched,
// then blockTrials trials of every cell. startup is the time from launch
// until the first measured trial began (ready, model resolved, warmed up);
// 0 for an arm that is not restarted.
func (x *abExperiment) block(ctx context.Context, arm int, b *result.Block) (startup time.Duration, err error) {
	if t := x.resident[arm]; t != nil {
		return 0, x.cells(ctx, arm, b, t)
	}
	a := x.arms[arm]
	launch := x.launch
	launch.Command, launch.Env, launch.URL, launch.Engine = a.command, a.env, a.url, a.engine
	launch.Log = abBlockLog(x.launch.Log, x.dir, a.name, b.Index)
	launched := time.Now()
	hook := &abFirstTrial{}
	err = serveRun(ctx, x.s, launch, func(ctx context.Context, info server.Info) error {
		cfg := x.lc
		cfg.URL, cfg.Engine = info.URL, a.engine
		cfg.Hooks = append(serveHooks(info.URL), hook)
		r, err := loadgen.New(cfg)
		if err != nil {
			return err
		}
		defer r.Close()
		return x.cells(ctx, arm, b, pipeline.Capacity{Serving: r, Log: x.s.Err})
	})
	if at := hook.time(); !at.IsZero() {
		startup = at.Sub(launched)
	}
	if err == nil {
		return startup, nil
	}
	if f, died := serveFailure(x.s, err); died {
		x.failure, x.failedArm = &f, arm
		if !f.BeforeReady {
			serveMarkFailed(x.last[arm], f)
		}
		return startup, errors.New(f.Summary)
	}
	return startup, err
}

// cells runs the block's trials of every cell through t, tagging each new
// trial with the block.
func (x *abExperiment) cells(ctx context.Context, arm int, b *result.Block, t pipeline.Trials) error {
	a := x.arms[arm]
	for j, orig := range x.ms {
		m := a.manifest(orig)
		srv, err := t.Prepare(ctx, m)
		res := x.results[arm][j]
		if res == nil {
			res = t.NewResult(m, srv)
			res.StartedAt, res.Source = time.Now().UTC(), "perfgate ab"
			res.Fingerprint = x.fps[arm].get(srv)
			abBenchFingerprint(res, m)
			x.results[arm][j] = res
		}
		x.last[arm] = res
		if err != nil {
			res.Complete, res.IncompleteReason = false, err.Error()
			res.FinishedAt = time.Now().UTC()
			return fmt.Errorf("%s: %w", m.Cell, err)
		}
		have := len(res.Trials)
		err = t.RunTrials(ctx, m, res, x.blockTrials)
		for k := have; k < len(res.Trials); k++ {
			res.Trials[k].Block, res.Trials[k].Look = b.Index, x.look
		}
		if err != nil {
			if errors.Is(err, loadgen.ErrInterrupted) {
				return fmt.Errorf("%s: interrupted", m.Cell)
			}
			return fmt.Errorf("%s: %w", m.Cell, err)
		}
		fmt.Fprintf(x.s.Err, "ab: block %d: arm %s: %s: %d trials (%d valid)\n", b.Index, a.name, m.Cell, len(res.Trials)-have, abValid(res.Trials[have:]))
	}
	return nil
}

// abBenchFingerprint records a kind: command arm's benchmark command in
// its result, as server.argv records a launched server's: the one place
// the two arms of a command workload differ.
func abBenchFingerprint(res *result.Result, m *workload.Manifest) {
	if !m.IsCommand() || m.Command == nil {
		return
	}
	fp := (&serveFingerprint{argv: m.Command.Argv, env: m.Command.Env}).get(res.Server)
	res.Fingerprint = fp
}

func abValid(ts []result.Trial) int {
	n := 0
	for _, t := range ts {
		if t.Valid {
			n++
		}
	}
	return n
}

// write writes every result of both arms, each with the design so far:
// dir/a/<cell>.json and dir/b/<cell>.json. Until the final write every
// file says incomplete (abOnDisk).
func (x *abExperiment) write(final bool) error {
	for i, a := range x.arms {
		for _, r := range x.results[i] {
			if r == nil {
				continue
			}
			r.Arm = a.name
			d := x.design
			d.Blocks = append([]result.Block(nil), x.design.Blocks...)
			r.AB = &d
			if err := result.Write(filepath.Join(x.dir, a.name, result.FileName(r.Workload.Cell)), abOnDisk(r, final)); err != nil {
				return fmt.Errorf("ab: %w", err)
			}
		}
	}
	return nil
}

// abBlockLog is where block i's server output goes: beside the arm's
// results, or, with --server-log, that file with the arm and block before
// its extension. Each start gets its own file: a launch replaces its log,
// and a block's log explains its numbers.
func abBlockLog(log, dir, arm string, i int) string {
	if log == "" {
		return filepath.Join(dir, arm, fmt.Sprintf("server-block-%02d.log", i))
	}
	ext := filepath.Ext(log)
	return fmt.Sprintf("%s.block-%02d-%s%s", log[:len(log)-len(ext)], i, arm, ext)
}

// abFirstTrial is a trial hook that notes when the block's first measured
// trial began (after the readiness wait and the first warmups): the end of
// the block's start-up.
type abFirstTrial struct {
	mu sync.Mutex
	at time.Time
}

func (h *abFirstTrial) BeforeTrial(context.Context, int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.at.IsZero() {
		h.at = time.Now()
	}
	return nil
}

func (h *abFirstTrial) AfterTrial(context.Context, int, *result.Trial) error { return nil }

func (h *abFirstTrial) time() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.at
}
