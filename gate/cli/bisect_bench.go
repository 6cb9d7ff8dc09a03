package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/bisect"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/workload"
)

// bisectBench is the search's Bench: each pair of commits is one
// experiment of `perfgate ab` (its arms and blocks, abExperiment), in
// DIR/pairs/<a>-<b>/ with ab's layout (a/<cell>.json, b/<cell>.json,
// per-block server logs). It uses abExperiment only through
// newABExperiment, run, results and design, so ab's session code can
// change underneath it; every block opens its server's session (so holds
// the settings both arms share).
type bisectBench struct {
	s           *Streams
	p           *bisectPlan
	so          session.Options
	dir         string
	blockTrials int
	exps        map[bisect.Pair]*abExperiment
}

var _ bisect.Bench = (*bisectBench)(nil)

// Run builds both commits (once each), then extends their experiment to
// blocks blocks in ab's balanced order. An experiment found on disk (a
// rerun, a search for another metric) is read back first, its complete
// blocks kept, so no block is measured twice.
func (b *bisectBench) Run(ctx context.Context, p bisect.Pair, blocks int) ([]*result.Result, []*result.Result, error) {
	x, err := b.experiment(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	have := len(x.design.Order)
	if have < blocks {
		var order string
		if have == 0 {
			order, err = ab.Order(blocks, 0)
		} else {
			order, err = ab.Extend(x.design.Order, blocks-have, 0)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("pair %s: %w", b.pairName(p), err)
		}
		if err := x.run(ctx, order, have); err != nil {
			return abNonNil(x.results[0]), abNonNil(x.results[1]), fmt.Errorf("%s against %s: %w (each block's server log is under %s)",
				shortSHA(b.p.commits[p.B].SHA), shortSHA(b.p.commits[p.A].SHA), err, x.dir)
		}
	}
	return abNonNil(x.results[0]), abNonNil(x.results[1]), nil
}

func (b *bisectBench) pairName(p bisect.Pair) string {
	return shortSHA(b.p.commits[p.A].SHA) + "-" + shortSHA(b.p.commits[p.B].SHA)
}

// experiment is the pair's experiment, built (and read back from disk)
// on first use.
func (b *bisectBench) experiment(ctx context.Context, p bisect.Pair) (*abExperiment, error) {
	if x := b.exps[p]; x != nil {
		return x, nil
	}
	var arms [2]abArm
	for i, c := range []int{p.A, p.B} {
		sha := b.p.commits[c].SHA
		if err := bisectBuild(ctx, b.s, b.p.build, b.dir, sha); err != nil {
			return nil, err
		}
		arms[i] = abArm{name: []string{"a", "b"}[i], command: withSHA(b.p.server, sha), env: b.p.cfg.Server.Env, url: b.p.cfg.Server.URL}
		var err error
		if arms[i].engine, err = measureEngine(b.p.cfg.Server.Engine, "server.engine", arms[i].command); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(b.dir, "pairs", b.pairName(p))
	for _, arm := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, arm), 0o755); err != nil {
			return nil, fmt.Errorf("bisect: %w", err)
		}
	}
	ms := []*workload.Manifest{b.p.m}
	x := newABExperiment(b.s, ms, arms, b.blockTrials, b.so, dir, 0)
	if err := bisectResume(x, dir, ms); err != nil {
		return nil, err
	}
	fmt.Fprintf(b.s.Err, "bisect: experiment %s (arm b) against %s (arm a) in %s\n", shortSHA(b.p.commits[p.B].SHA), shortSHA(b.p.commits[p.A].SHA), dir)
	if n := len(x.design.Order); n > 0 {
		fmt.Fprintf(b.s.Err, "bisect: %s: %d block(s) measured before, kept\n", b.pairName(p), n)
	}
	b.exps[p] = x
	return x, nil
}

// bisectResume reads an experiment's results back from dir: the blocks
// every cell of its arm ran in full are kept (an even number of them, so
// the order stays balanced), a block an interrupt or a failure cut short
// is dropped and will run again.
func bisectResume(x *abExperiment, dir string, ms []*workload.Manifest) error {
	var found [2][]*result.Result
	for i, arm := range []string{"a", "b"} {
		for _, m := range ms {
			r, err := result.Read(filepath.Join(dir, arm, result.FileName(m.Cell)))
			if errors.Is(err, fs.ErrNotExist) {
				return nil // nothing (complete) measured yet
			}
			if err != nil {
				return fmt.Errorf("reading the measured blocks of %s: %w", dir, err)
			}
			if r.AB == nil || r.Workload.Hash != m.Hash {
				return fmt.Errorf("%s: not this workload's A/B experiment (the workload changed since?): remove %s to measure it again", filepath.Join(dir, arm, result.FileName(m.Cell)), dir)
			}
			found[i] = append(found[i], r)
		}
	}
	design := found[0][0].AB
	keep := 0
	for _, bl := range design.Blocks {
		if bl.Index != keep+1 || keep >= len(design.Order) || !bisectBlockDone(found[armIndex(design.Order[keep])], bl) {
			break
		}
		keep++
	}
	keep -= keep % 2
	if keep == 0 {
		return nil
	}
	for i := range found {
		for j, r := range bisect.FirstBlocks(found[i], keep) {
			r.Complete, r.IncompleteReason = true, ""
			x.results[i][j] = r
		}
	}
	x.design = *bisect.FirstBlocks(found[0], keep)[0].AB
	return nil
}

// bisectBlockDone reports whether every cell of the block's arm ran the
// block's trials.
func bisectBlockDone(rs []*result.Result, bl result.Block) bool {
	for _, r := range rs {
		n := 0
		for _, t := range r.Trials {
			if t.Block == bl.Index {
				n++
			}
		}
		if n < bl.Trials {
			return false
		}
	}
	return true
}
