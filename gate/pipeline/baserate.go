package pipeline

import (
	"fmt"
	"sort"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// A share-of-saturation cell (`load.rate: 80%-of-saturation`) is compared
// twice, in one Holm family. The cell itself compares each arm at its own
// share of its own saturation: did the knee move, is the candidate as
// good at 80 % of what it can serve. Its second comparison,
// result.BaselineRateCell(cell) ("name@baseline-rate"), runs the
// candidate also at the absolute rate the baseline's trials ran at
// (the baseline's Saturation.RateRPS) and compares those trials with the
// baseline's own: the latency at the load production sees. A candidate
// whose saturation fell passes the first at a lower rate and shows the
// loss in the second.
//
// The baseline side of the second comparison is never run or stored: it
// is the share cell's baseline trials, which ran at that rate, renamed
// (baselinesAtRate). Both sides' hash is workload.AtRateHash of the share
// cell's hash and the rate, so the two match exactly when one share
// workload ran at one absolute rate.

// withBaselineRate returns ms with, after each share-of-saturation
// manifest whose baseline recorded the absolute rate its trials ran at,
// that manifest at the baseline's rate (Manifest.AtBaselineRate). A share
// cell without a baseline, or whose workload changed since the baseline
// (the share cell reports that), gets none. A baseline that records no
// rate gets none and a warning; several baseline sessions at different
// rates use the newest one's rate, with a warning, and so does a
// recorded rate no cell can run at.
func withBaselineRate(ms []*workload.Manifest, baselines []*result.Result) ([]*workload.Manifest, []string) {
	have := map[string]bool{}
	for _, m := range ms {
		have[m.Cell] = true
	}
	var out []*workload.Manifest
	var warnings []string
	for _, m := range ms {
		out = append(out, m)
		if m.SaturationShare <= 0 || have[result.BaselineRateCell(m.Cell)] {
			continue
		}
		sessions := shareSessions(baselines, m.Cell)
		if len(sessions) == 0 {
			continue
		}
		changed := false
		for _, b := range sessions {
			changed = changed || b.Workload.Hash != m.Hash
		}
		if changed {
			continue
		}
		rate, warn := baselineRate(m.Cell, sessions)
		if warn != "" {
			warnings = append(warnings, warn)
		}
		if rate == 0 {
			continue
		}
		at, err := m.AtBaselineRate(rate)
		if err != nil {
			// A baseline file's rate no cell can run at (edited by hand).
			warnings = append(warnings, fmt.Sprintf("%s: not compared at the baseline's rate: %v", m.Cell, err))
			continue
		}
		out = append(out, at)
	}
	return out, warnings
}

// shareSessions are the baseline sessions of share cell cell, newest
// first.
func shareSessions(baselines []*result.Result, cell string) []*result.Result {
	var out []*result.Result
	for _, b := range baselines {
		if b.Workload.Cell == cell && b.BaselineRate == nil {
			out = append(out, b)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartedAt.After(out[j].StartedAt) })
	return out
}

// baselineRate is the absolute rate of the newest session that recorded
// one (0 when none did), with a warning when none did or when other
// sessions ran at other rates (their trials are then left out of the
// comparison at the baseline's rate: they measured another load).
func baselineRate(cell string, sessions []*result.Result) (float64, string) {
	rate, others := 0.0, 0
	for _, b := range sessions {
		if b.Saturation == nil || !(b.Saturation.RateRPS > 0) {
			continue
		}
		switch {
		case rate == 0:
			rate = b.Saturation.RateRPS
		case b.Saturation.RateRPS != rate:
			others++
		}
	}
	switch {
	case rate == 0:
		return 0, fmt.Sprintf("%s: the baseline records no saturation rate (it was recorded before perfgate kept one, or imported), so %s is not run: the cell is compared at each arm's own share of saturation only; re-baseline to compare at the baseline's absolute rate too",
			cell, result.BaselineRateCell(cell))
	case others > 0:
		return rate, fmt.Sprintf("%s: %d baseline session(s) ran at another absolute rate than the newest one's %s req/s; %s compares with the sessions at that rate only",
			cell, others, result.FormatRate(rate), result.BaselineRateCell(cell))
	}
	return rate, ""
}

// WithBaselineRate returns baselines with, for every candidate result of
// a comparison at the baseline's absolute rate (result.BaselineRate set),
// the baseline it is compared with: each session of its share cell's
// baseline that ran at the candidate's rate, renamed to the candidate's
// cell, under the hash workload.AtRateHash of its own share hash and
// rate. Baseline results of such cells given in baselines are dropped (a
// gate's results promoted to baselines hold them): the baseline side is
// always the share cell's own trials. gate, gate --from and compare all
// build the comparison through it.
//
// When no session of the share cell ran at the candidate's rate (the
// baseline was updated after the candidate ran), the newest session is
// used at its own rate: its hash differs, so the verdict reports the
// cell as changed rather than compare two loads, and a warning says why.
// A share cell with no baseline that recorded a rate leaves the cell
// without a baseline, with a warning.
func WithBaselineRate(baselines, candidates []*result.Result) ([]*result.Result, []string) {
	var out []*result.Result
	for _, b := range baselines {
		if b.BaselineRate == nil {
			out = append(out, b)
		}
	}
	var warnings []string
	for _, c := range candidates {
		at := c.BaselineRate
		if at == nil {
			continue
		}
		sessions := shareSessions(baselines, at.Cell)
		var same, recorded []*result.Result
		for _, b := range sessions {
			if b.Saturation != nil && b.Saturation.RateRPS > 0 {
				recorded = append(recorded, b)
				if b.Saturation.RateRPS == at.RateRPS {
					same = append(same, b)
				}
			}
		}
		switch {
		case len(recorded) == 0:
			if len(sessions) > 0 {
				warnings = append(warnings, fmt.Sprintf("%s: the baseline of %s records no saturation rate, so there is nothing to compare the candidate's trials at %s req/s with", c.Workload.Cell, at.Cell, result.FormatRate(at.RateRPS)))
			}
			continue
		case len(same) == 0:
			same = recorded[:1]
			warnings = append(warnings, fmt.Sprintf("%s: the candidate ran at %s req/s, but the baseline of %s ran at %s req/s: a baseline updated after the candidate ran; not compared (re-run the gate)",
				c.Workload.Cell, result.FormatRate(at.RateRPS), at.Cell, result.FormatRate(same[0].Saturation.RateRPS)))
		}
		for _, b := range same {
			out = append(out, baselineAtRate(b))
		}
	}
	return out, warnings
}

// baselineAtRate is share-cell baseline session b as the baseline of its
// comparison at its own absolute rate: the same trials, under the cell
// name, hash and spec the candidate's manifest at that rate has.
func baselineAtRate(b *result.Result) *result.Result {
	rate := b.Saturation.RateRPS
	d := *b
	d.Workload.Cell = result.BaselineRateCell(b.Workload.Cell)
	d.Workload.Hash = workload.AtRateHash(b.Workload.Hash, rate)
	if spec, err := result.SpecAtRate(b.Workload.Spec, d.Workload.Cell, rate); err == nil {
		d.Workload.Spec = spec
	}
	d.Saturation = nil
	d.BaselineRate = &result.BaselineRate{Cell: b.Workload.Cell, ShareHash: b.Workload.Hash, Share: b.Saturation.Share, RateRPS: rate}
	return &d
}

// CompareAtRates is verdict.Compare with the comparisons at the
// baseline's absolute rate built in: the baseline side of every candidate
// result of one (WithBaselineRate), and the share cell's trusted rules
// and noise priors under its name too, so a rule the baseline was
// promoted with binds both comparisons of the cell. It returns the
// baselines compared, the built ones included (the report shows them).
// gate, gate --from and compare all compare through it.
func CompareAtRates(base, cand []*result.Result, p verdict.Policy, look verdict.Look) (*verdict.Comparison, []*result.Result, error) {
	base, warnings := WithBaselineRate(base, cand)
	p = policyAtRates(p, cand)
	cmp, err := verdict.Compare(base, cand, p, look)
	if err != nil {
		return nil, nil, err
	}
	cmp.Warnings = append(warnings, cmp.Warnings...)
	return cmp, base, nil
}

// policyAtRates returns p with each comparison at the baseline's rate
// given its share cell's trusted rules and noise priors where it has
// none of its own. p's maps are copied, not changed.
func policyAtRates(p verdict.Policy, cand []*result.Result) verdict.Policy {
	for _, c := range cand {
		at := c.BaselineRate
		if at == nil {
			continue
		}
		name := c.Workload.Cell
		if rules, ok := p.Trusted[at.Cell]; ok && p.Trusted[name] == nil {
			trusted := make(map[string][]verdict.Rule, len(p.Trusted)+1)
			for k, v := range p.Trusted {
				trusted[k] = v
			}
			trusted[name] = rules
			p.Trusted = trusted
		}
		if pr, ok := p.Noise[at.Cell]; ok && p.Noise[name] == nil {
			noise := make(verdict.Priors, len(p.Noise)+1)
			for k, v := range p.Noise {
				noise[k] = v
			}
			noise[name] = pr
			p.Noise = noise
		}
	}
	return p
}
