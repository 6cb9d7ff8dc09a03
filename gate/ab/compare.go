package ab

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Options are the knobs of a paired verdict.
type Options struct {
	// Policy gives the gated rules, tolerances, directions, alpha and the
	// between-session noise, exactly as for verdict.Compare.
	Policy verdict.Policy
	// Look is the look of an adaptive run (more blocks while a gated cell
	// is undecided); it is tested at Policy.Alpha/Look.Max. Zero: look 1
	// of 1.
	Look verdict.Look
	// Resident is true when each arm was one long-running server session
	// (two URLs, servers kept up): the per-start offset does not randomise,
	// so the between-session noise term applies as for a stored baseline
	// (calibration, policy.assumed_between or verdict's documented
	// default). False when every block restarted its arm's server: then
	// the block-to-block spread is the noise.
	Resident bool
	// Estimator combines the pair differences; empty means
	// DefaultEstimator.
	Estimator Estimator
}

// armKeys are the fingerprint keys the two arms of an A/B experiment are
// expected to differ in (the arm's command line, environment and build):
// they are listed as soft differences even when the policy's hard keys
// name them.
func armKey(k string) bool {
	return k == result.KeyServerArgv || k == result.KeyVLLMVersion || strings.HasPrefix(k, result.EnvPrefix)
}

// Compare is the paired verdict of arm b against arm a: a and b hold one
// result per workload cell (result.Result with Arm "a"/"b", AB set, every
// trial tagged with its Block). The comparison's baseline side is arm A,
// its candidate side arm B; its outcomes, Holm family, tolerances, look
// alpha and exit-code meaning are verdict.Compare's, and Comparison.AB and
// Cell.Blocks carry the design and the per-block values.
//
// Each cell's test runs on the adjacent block pairs: pair k's difference is
// B's block value minus A's on the log scale (block value: the mean of the
// block's valid trials' logs), so whatever the two blocks of a pair share
// cancels; see Estimator for how the differences are combined. Data
// problems (a missing arm, a changed workload, invalid trials, a block
// without a valid trial) are reported in the comparison; the error is for
// an invalid policy or look and for inputs that are not an A/B experiment
// (wrong arm letters, no or unbalanced order, trials without blocks).
func Compare(a, b []*result.Result, o Options) (*verdict.Comparison, error) {
	p := o.Policy
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	look := o.Look
	if look == (verdict.Look{}) {
		look = verdict.Look{Index: 1, Max: 1}
	}
	if look.Max < 1 || look.Index < 1 || look.Index > look.Max {
		return nil, fmt.Errorf("look %d of %d: want 1 <= index <= max", look.Index, look.Max)
	}
	est := o.Estimator
	if est == "" {
		est = DefaultEstimator
	}
	switch est {
	case Pairs, Quads, PairsDrift:
	default:
		return nil, fmt.Errorf("estimator %q: want %s, %s or %s", est, Pairs, Quads, PairsDrift)
	}
	o.Estimator = est
	a, b = verdict.DropImpossible(a), verdict.DropImpossible(b)
	am, err := byCell("a", a)
	if err != nil {
		return nil, err
	}
	bm, err := byCell("b", b)
	if err != nil {
		return nil, err
	}
	c := &verdict.Comparison{
		Schema:    verdict.SchemaID,
		Alpha:     p.Alpha,
		LookAlpha: p.Alpha / float64(look.Max),
		Look:      look,
		Policy:    p,
		Noise:     []verdict.Noise{},
	}
	var cells []*pairedCell
	defaulted := map[string]bool{}
	for _, name := range verdict.CellNames(am, bm) {
		w, err := match(name, am[name], bm[name], &p)
		if err != nil {
			return nil, err
		}
		if w.Status == verdict.Compared {
			if c.AB == nil {
				c.AB = design(am[name], o.Resident, est)
			}
			got, err := buildCells(&w, am[name], bm[name], o, &p)
			if err != nil {
				return nil, err
			}
			for _, pc := range got {
				if o.Resident && pc.betweenSource == "default" {
					defaulted[pc.cell.Metric] = true
				}
			}
			cells = append(cells, got...)
		}
		c.Workloads = append(c.Workloads, w)
	}
	if c.AB == nil {
		// No cell was compared: the comparison is still a paired one.
		for _, r := range append(append([]*result.Result(nil), a...), b...) {
			c.AB = design(r, o.Resident, est)
			break
		}
	}
	if len(defaulted) > 0 {
		ids := make([]string, 0, len(defaulted))
		for id := range defaulted {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		c.Warnings = append(c.Warnings, "resident servers: each arm is one server session, so the between-session noise applies, and it is not calibrated: "+
			"the documented default (verdict.DefaultBetweenCV) is used for "+strings.Join(ids, ", ")+
			"; run `perfgate calibrate`, set policy.assumed_between, or restart the servers per block")
	}
	decide(c, cells, &p)
	holdBusy(cells, bm) // busy.go
	plan(c, cells)
	c.Cells = make([]verdict.Cell, 0, len(cells))
	for _, pc := range cells {
		c.Cells = append(c.Cells, pc.cell)
	}
	c.Finish()
	return c, nil
}

// design is the Comparison's description of the experiment, from arm A's
// result (both arms carry the same AB; match checks the orders agree).
func design(r *result.Result, resident bool, est Estimator) *verdict.Paired {
	d := &verdict.Paired{Order: r.AB.Order, Seed: r.AB.Seed, Blocks: len(r.AB.Order), Pairs: len(r.AB.Order) / 2,
		Resident: resident, Estimator: string(est)}
	for _, bl := range r.AB.Blocks {
		d.StartupS += bl.StartupS
	}
	d.BlockS = blockSeconds(r.AB.Blocks)
	return d
}

// byCell indexes one arm's results by workload cell and checks that they
// are that arm of an A/B experiment.
func byCell(arm string, rs []*result.Result) (map[string]*result.Result, error) {
	m := make(map[string]*result.Result, len(rs))
	for i, r := range rs {
		if r == nil {
			return nil, fmt.Errorf("arm %s [%d]: nil result", arm, i)
		}
		cell := r.Workload.Cell
		if r.Arm != arm {
			return nil, fmt.Errorf("arm %s, workload cell %q: the result is marked arm %q", arm, cell, r.Arm)
		}
		if r.AB == nil {
			return nil, fmt.Errorf("arm %s, workload cell %q: no A/B design (ab) recorded", arm, cell)
		}
		if err := Check(r.AB.Order); err != nil {
			return nil, fmt.Errorf("arm %s, workload cell %q: ab.%w", arm, cell, err)
		}
		letter := strings.ToUpper(arm)[0]
		for _, t := range r.Trials {
			if !t.Valid && t.Block == 0 {
				// An invalid trial is left out anyway; one that failed
				// before its block was recorded is still listed as
				// excluded.
				continue
			}
			if t.Block < 1 || t.Block > len(r.AB.Order) {
				return nil, fmt.Errorf("arm %s, workload cell %q: trial %d has block %d, want 1..%d", arm, cell, t.Index, t.Block, len(r.AB.Order))
			}
			if r.AB.Order[t.Block-1] != letter {
				return nil, fmt.Errorf("arm %s, workload cell %q: trial %d is in block %d, which order %q gives to arm %c", arm, cell, t.Index, t.Block, r.AB.Order, r.AB.Order[t.Block-1])
			}
		}
		if _, dup := m[cell]; dup {
			return nil, fmt.Errorf("arm %s: two results for workload cell %q (merge shards first)", arm, cell)
		}
		m[cell] = r
	}
	return m, nil
}

// match applies verdict's matching rules to one workload cell of the two
// arms: both present, same workload hash, complete, comparable hardware
// (the keys an arm is expected to change are soft), and not too many
// invalid trials. It returns the workload's status; the rules in force
// are the selection's (buildCells).
func match(name string, a, b *result.Result, p *verdict.Policy) (verdict.Workload, error) {
	w := verdict.Workload{Cell: name}
	switch {
	case a == nil:
		w.Status, w.Allowed = verdict.MissingBaseline, p.AllowMissing
		w.Message = "arm A did not run this workload cell"
		w.CandidateHash, w.CandidateTrials = b.Workload.Hash, len(b.ValidTrials())
		return w, nil
	case b == nil:
		w.Status, w.Allowed = verdict.MissingCandidate, p.AllowMissing
		w.Message = "arm B did not run this workload cell"
		w.BaselineHash, w.BaselineTrials = a.Workload.Hash, len(a.ValidTrials())
		return w, nil
	}
	w.BaselineHash, w.CandidateHash = a.Workload.Hash, b.Workload.Hash
	w.BaselineTrials, w.CandidateTrials = len(a.ValidTrials()), len(b.ValidTrials())
	if a.AB.Order != b.AB.Order {
		return w, fmt.Errorf("workload cell %q: arm A's order %q and arm B's %q differ: the arms are not of one experiment", name, a.AB.Order, b.AB.Order)
	}
	if a.Workload.Hash != b.Workload.Hash {
		w.Status = verdict.WorkloadChanged
		why := fmt.Sprintf("hash %s vs %s", verdict.ShortHash(a.Workload.Hash), verdict.ShortHash(b.Workload.Hash))
		if _, fields, _ := result.SameWorkload(a.Workload, b.Workload); fields != "" {
			why = fields // the spec fields that differ, not two hashes
		}
		w.Message = fmt.Sprintf("the arms ran different workloads (%s)", why)
		return w, nil
	}
	for _, arm := range []struct {
		name string
		r    *result.Result
	}{{"A", a}, {"B", b}} {
		if !arm.r.Complete {
			w.Status = verdict.IncompleteRun
			w.Message = fmt.Sprintf("arm %s's run is incomplete: %s", arm.name, verdict.IncompleteReason(arm.r))
			return w, nil
		}
	}
	var hardKeys []string
	for _, k := range p.HardKeys {
		if !armKey(k) {
			hardKeys = append(hardKeys, k)
		}
	}
	w.Fingerprint = result.DiffFingerprints(a.Fingerprint, b.Fingerprint, hardKeys)
	if !p.CheckFingerprint(&w, "the arms ran on different environments") {
		return w, nil
	}
	// Both arms are screened even when the first fails, so the report
	// lists every invalid trial of both (verdict.Compare does the same).
	invalid := false
	for _, arm := range []struct {
		name, side string
		r          *result.Result
	}{{"A", "baseline", a}, {"B", "candidate", b}} {
		if !p.ExcludeInvalid(&w, arm.r, arm.side, "arm "+arm.name) {
			invalid = true
		}
	}
	if invalid {
		return w, nil
	}
	w.Status = verdict.Compared
	return w, nil
}
