package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/verdict"
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
	// so holds the session settings shared by both arms (load generator,
	// ready timeout, workdir, log); each block or resident session sets
	// the arm's command, env, URL and engine.
	so session.Options
	// dir is the output directory: results go to dir/a and dir/b.
	dir string
	// resident holds one session per arm when the arms are servers already
	// up or kind: command benchmarks: nothing to restart between blocks
	// (withResident opens them).
	resident [2]*session.Session

	results [2][]*result.Result // by arm, then manifest index
	design  result.AB
	// failure is the launched server's failure that stopped the
	// experiment, nil while none did; failedArm the arm it happened in.
	failure   *server.Failure
	failedArm int
	// look is the verdict look new trials are added in (Trial.Look: 0
	// for the first look's blocks).
	look int
	// kernels is both arms' kernel profile (profile_ab.go), nil without.
	kernels *verdict.KernelDiff
}

// armIndex maps "A"/"B" of an order to the arm.
func armIndex(c byte) int {
	if c == 'B' || c == 'b' {
		return 1
	}
	return 0
}

// newABExperiment holds the experiment's settings; withResident opens
// the sessions of arms that are not restarted per block.
func newABExperiment(s *Streams, ms []*workload.Manifest, arms [2]abArm, blockTrials int, so session.Options, dir string, seed uint64) *abExperiment {
	x := &abExperiment{s: s, ms: ms, arms: arms, blockTrials: blockTrials, so: so, dir: dir,
		design: result.AB{Seed: seed, Blocks: []result.Block{}}}
	for i := range arms {
		x.results[i] = make([]*result.Result, len(ms))
	}
	return x
}

// withResident opens a session for every arm from arm on that is not
// restarted per block (a server already up, or kind: command benchmarks,
// whose output goes under dir/<arm>/commands), one inside the other, and
// calls fn while they are open.
func (x *abExperiment) withResident(ctx context.Context, arm int, fn func(ctx context.Context) error) error {
	if arm == len(x.arms) {
		return fn(ctx)
	}
	a, serving := x.arms[arm], gateServing(x.ms)
	if serving && !a.resident() {
		return x.withResident(ctx, arm+1, fn)
	}
	o := x.so
	if serving {
		o.URL, o.Engine = a.url, a.engine
	} else {
		o.CommandDir = filepath.Join(x.dir, a.name, "commands")
	}
	err := session.Run(ctx, o, func(ctx context.Context, sess *session.Session) error {
		x.resident[arm] = sess
		return x.withResident(ctx, arm+1, fn)
	})
	return measureSetup(err, "--"+a.name+"-url")
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
	if sess := x.resident[arm]; sess != nil {
		return 0, x.cells(ctx, arm, b, sess)
	}
	a := x.arms[arm]
	o := x.so
	o.Command, o.Env, o.URL, o.Engine = a.command, a.env, a.url, a.engine
	o.Log = abBlockLog(x.so.Log, x.dir, a.name, b.Index)
	hook := &abFirstTrial{}
	o.Hooks = append(append([]loadgen.TrialHook(nil), x.so.Hooks...), hook)
	launched := time.Now()
	err = session.Run(ctx, o, func(ctx context.Context, sess *session.Session) error {
		return x.cells(ctx, arm, b, sess)
	})
	if at := hook.time(); !at.IsZero() {
		startup = at.Sub(launched)
	}
	if err == nil {
		return startup, nil
	}
	// The session marked the cell the failure cut short.
	if f, died := session.Failure(err); died {
		x.failure, x.failedArm = &f, arm
		return startup, errors.New(f.Summary)
	}
	return startup, err
}

// cells runs the block's trials of every cell in sess, tagging each new
// trial with the block.
func (x *abExperiment) cells(ctx context.Context, arm int, b *result.Block, sess *session.Session) error {
	a, t := x.arms[arm], sess.Trials()
	for j, orig := range x.ms {
		m := a.manifest(orig)
		srv, err := t.Prepare(ctx, m)
		res := x.results[arm][j]
		if res == nil {
			res = t.NewResult(m, srv) // the session's: fingerprinted
			res.StartedAt, res.Source = time.Now().UTC(), "perfgate ab"
			x.abBenchFingerprint(res, m)
			x.results[arm][j] = res
		} else {
			sess.Track(res) // a failure of this block's server marks it
		}
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
func (x *abExperiment) abBenchFingerprint(res *result.Result, m *workload.Manifest) {
	if !m.IsCommand() || m.Command == nil {
		return
	}
	fp := &session.Fingerprints{Argv: m.Command.Argv, Env: m.Command.Env, Environ: x.s.environ()}
	res.Fingerprint = fp.Get(res.Server)
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
