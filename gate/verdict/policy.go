package verdict

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// Policy holds every knob of the decision. Start from DefaultPolicy; the
// config package fills it from the config file, and each workload's `gate:`
// list overrides Rules per cell (see Resolve). Fractions are fractions
// (0.03 = 3 %), not percents.
type Policy struct {
	// Alpha is the family-wise false-regression rate of a whole gate run,
	// over all gated cells and all looks.
	Alpha float64 `json:"alpha"`
	// PassAlpha is the one-sided error of the pass rule: a cell whose true
	// worsening equals its tolerance is called pass with probability at
	// most PassAlpha. The reported interval has level 1-2*PassAlpha.
	PassAlpha float64 `json:"pass_alpha"`
	// MinTrials is the number of valid trials per arm below which a cell is
	// labelled low-confidence and its noise is borrowed.
	MinTrials int `json:"min_trials"`
	// MaxLooks is the number of looks perfgate gate may take (adding trials
	// to inconclusive workloads between looks).
	MaxLooks int `json:"max_looks"`
	// AssumedCV is the per-trial noise assumed for relative metrics when
	// the data gives no usable estimate (e.g. imported files with one trial
	// per arm). AssumedAbs is the same for absolute metrics (a fraction:
	// 0.01 = 1 percentage point).
	AssumedCV  float64 `json:"assumed_cv"`
	AssumedAbs float64 `json:"assumed_abs"`
	// MinCV and MinAbs floor the noise estimate, so that a few identical
	// trials never look infinitely certain.
	MinCV  float64 `json:"min_cv"`
	MinAbs float64 `json:"min_abs"`
	// MinPooledDF is the fewest degrees of freedom (all workloads of a
	// metric together) a within-session noise prior is fitted from.
	MinPooledDF int `json:"min_pooled_df"`
	// OutlierAlpha is the chance, per session of one cell, that the
	// outlier-trial rule leaves out a good trial (docs/statistics.md,
	// "Outlier trials"); 0 turns the rule off.
	OutlierAlpha float64 `json:"outlier_alpha"`
	// AssumedBetween is the between-session CV (a fraction; points for
	// ratio metrics) assumed per metric id when neither calibration,
	// history nor the baseline's sessions give an estimate; the key "*"
	// covers every metric not named. Metrics it does not cover get
	// DefaultBetweenCV. 0 says both arms come from one session.
	AssumedBetween map[string]float64 `json:"assumed_between,omitempty"`
	// MaxInvalidShare is the largest share of invalid trials an arm may
	// have and still be compared (and, for baseline update, promoted).
	MaxInvalidShare float64 `json:"max_invalid_share"`
	// MaxBaselineAgeDays adds a warning when the baseline is older than
	// this many days relative to the candidate (0: never).
	MaxBaselineAgeDays float64 `json:"max_baseline_age_days"`
	// AllowMissing compares what can be compared when a workload has no
	// baseline (or no candidate) instead of failing closed.
	AllowMissing bool `json:"allow_missing"`
	// AllowMismatch compares despite differing hard fingerprint keys.
	AllowMismatch bool `json:"allow_mismatch"`
	// HardKeys are the fingerprint keys that must be equal for two runs to
	// be compared. Other differing keys are listed as soft differences.
	HardKeys []string `json:"hard_keys"`
	// Rules are the per-metric gating defaults. Metrics without a rule are
	// compared and shown but not gated.
	Rules []Rule `json:"rules"`
	// Noise holds the calibrated or history-learned noise of each cell
	// (see Prior); nil means none is known and the documented default
	// between-session noise applies. It is input data, not a knob, so it
	// is not serialized with the policy.
	Noise Priors `json:"-"`
	// Trusted holds, per workload cell, the rules stored with its baseline
	// when it was promoted from the trusted side (see tighten): the cell
	// is judged by the stricter of these and the checked-out rules. Like
	// Noise it is input data, not serialized with the policy.
	Trusted map[string][]Rule `json:"-"`
}

// Rule gates one metric id with a tolerance.
type Rule struct {
	Metric string `json:"metric"`
	Gated  bool   `json:"gated"`
	// Tolerance is a fraction (0.03 = 3 %) for relative metrics and an
	// absolute difference (0.005 = 0.5 percentage points) for ratio metrics.
	Tolerance float64 `json:"tolerance"`
}

// DefaultGated are the metrics gated unless configured otherwise.
var DefaultGated = []string{
	"ttft_ms.p50", "ttft_ms.p99",
	"tpot_ms.p50", "tpot_ms.p99",
	"e2el_ms.p50", "e2el_ms.p99",
	"output_throughput", "request_throughput",
	"success_rate",
}

// DefaultHardKeys are the fingerprint keys that must match by default: a
// different GPU model or count, or a different model served, measures a
// different system. The names follow the fingerprint convention of package
// result ("group.key").
var DefaultHardKeys = []string{result.KeyGPUName, result.KeyGPUCount, result.KeyServerModel}

// DefaultPolicy returns the documented defaults (docs/statistics.md).
func DefaultPolicy() Policy {
	p := Policy{
		Alpha:              0.01,
		PassAlpha:          0.10,
		MinTrials:          3,
		MaxLooks:           3,
		AssumedCV:          0.05,
		AssumedAbs:         0.01,
		MinCV:              0.002,
		MinAbs:             0.0005,
		MinPooledDF:        8,
		OutlierAlpha:       0.001,
		MaxInvalidShare:    0.25,
		MaxBaselineAgeDays: 30,
		HardKeys:           append([]string(nil), DefaultHardKeys...),
	}
	for _, id := range DefaultGated {
		p.Rules = append(p.Rules, Rule{Metric: id, Gated: true, Tolerance: DefaultTolerance(id)})
	}
	return p
}

// Absolute reports whether metric id is compared by difference rather than
// by ratio: ratios bounded by 1 (success_rate, goodput_ratio), where "0.5
// points" is meaningful and a ratio of ratios is not.
func Absolute(id string) bool {
	m, ok := metrics.Lookup(id)
	return ok && m.Unit == "ratio"
}

// DefaultTolerance is the tolerance a metric gets when a rule names it
// without one: 0.5 points for ratio metrics, 6 % for tail percentiles
// (p90 and above, max), which are noisier, and 3 % for everything else.
func DefaultTolerance(id string) float64 {
	if Absolute(id) {
		return 0.005
	}
	if pid, ok := metrics.ParseID(id); ok && pid.Stat.Tail() {
		return 0.06
	}
	return 0.03
}

// MinAlpha is the smallest family-wise alpha a policy accepts: below it
// the quantiles of a few-trial comparison overflow to infinity (alpha
// 1e-300 made every interval infinite), and no gate run could gather the
// evidence such an alpha asks for anyway.
const MinAlpha = 1e-9

// Validate checks the policy's ranges.
func (p *Policy) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(p.Alpha >= MinAlpha && p.Alpha < 0.5, "alpha %v: must be in [%g, 0.5)", p.Alpha, MinAlpha)
	check(p.PassAlpha > 0 && p.PassAlpha < 0.5, "pass_alpha %v: must be in (0, 0.5)", p.PassAlpha)
	check(p.MinTrials >= 1, "min_trials %d: must be at least 1", p.MinTrials)
	check(p.MaxLooks >= 1, "max_looks %d: must be at least 1", p.MaxLooks)
	check(p.AssumedCV > 0 && p.AssumedAbs > 0, "assumed noise must be positive")
	check(p.MinCV > 0 && p.MinAbs > 0, "noise floors min_cv and min_abs must be positive")
	check(p.MinPooledDF >= 1, "min_pooled_df %d: must be at least 1", p.MinPooledDF)
	check(p.OutlierAlpha >= 0 && p.OutlierAlpha < 0.5, "outlier_alpha %v: must be in [0, 0.5)", p.OutlierAlpha)
	for _, id := range slices.Sorted(maps.Keys(p.AssumedBetween)) {
		if _, ok := metrics.Lookup(id); !ok && id != "*" {
			errs = append(errs, fmt.Errorf("assumed_between: unknown metric %q", id))
		}
		check(p.AssumedBetween[id] >= 0 && p.AssumedBetween[id] < 1, "assumed_between.%s %v: must be a fraction in [0, 1)", id, p.AssumedBetween[id])
	}
	check(p.MaxInvalidShare >= 0 && p.MaxInvalidShare <= 1, "max_invalid_share %v: must be in [0, 1]", p.MaxInvalidShare)
	for i, r := range p.Rules {
		if _, ok := metrics.Lookup(r.Metric); !ok {
			errs = append(errs, fmt.Errorf("rules[%d]: unknown metric %q", i, r.Metric))
			continue
		}
		check(r.Tolerance >= 0, "rules[%d] (%s): negative tolerance", i, r.Metric)
		if r.Gated && metrics.MustLookup(r.Metric).Direction == metrics.Informational {
			errs = append(errs, fmt.Errorf("rules[%d]: %s is informational and cannot be gated", i, r.Metric))
		}
	}
	return errors.Join(errs...)
}

// Resolve returns the rules in force for one workload: Rules, overridden by
// the workload's `gate:` list taken from its result spec (the
// "gate" key of result.Workload.Spec). A zero Tolerance keeps the
// previous one (or DefaultTolerance).
//
// For a command cell (spec "kind": "command") Compare goes further and
// drops the rules that come only from the policy for metrics neither run
// carries (see cellRules.forFiles); Resolve, which sees no files, does not.
func (p *Policy) Resolve(spec json.RawMessage) (map[string]Rule, error) {
	cr, err := p.resolve(spec)
	if err != nil {
		return nil, err
	}
	return cr.rules, nil
}

// cellRules are the rules in force for one workload cell.
type cellRules struct {
	rules map[string]Rule
	// optOut are the metrics the workload's gate list turns off
	// explicitly (`gated: false`): those are never gated as a substitute
	// for a missing statistic (see substitute).
	optOut map[string]bool
	// command is set for a command cell (offline engine benchmark);
	// named are then the metrics its gate list names.
	command bool
	named   map[string]bool
}

// forFiles returns the rules to apply to a cell whose baseline and
// candidate carry the metric ids b and c. A command cell produces only
// offline_* metrics, so the policy's gated metrics (by default the serving
// metrics TTFT, TPOT, ...) would all be "in neither run" and fill every
// report with warnings: for such a cell, a rule that comes only from the
// policy applies only to a metric some run carries. Its own gate list
// (which the parser requires to be non-empty) applies in full, so a gated
// metric of its own that is missing is still reported.
func (cr *cellRules) forFiles(b, c map[string]bool) map[string]Rule {
	if !cr.command {
		return cr.rules
	}
	out := make(map[string]Rule, len(cr.rules))
	for id, r := range cr.rules {
		if cr.named[id] || b[id] || c[id] {
			out[id] = r
		}
	}
	return out
}

// resolve is Resolve keeping what Compare needs besides the rules.
func (p *Policy) resolve(spec json.RawMessage) (*cellRules, error) {
	rules := make(map[string]Rule, len(p.Rules))
	optOut := map[string]bool{}
	for _, r := range p.Rules {
		if r.Tolerance == 0 {
			r.Tolerance = DefaultTolerance(r.Metric)
		}
		rules[r.Metric] = r
	}
	cr := &cellRules{rules: rules, optOut: optOut}
	s, err := result.Workload{Spec: spec}.ParseSpec()
	if err != nil {
		return nil, err
	}
	// A capacity cell is like a command cell here: its trials carry
	// capacity_rps and saturation_throughput, none of the serving metrics
	// the policy gates by default, and its gate list names its own.
	if s.Kind == result.KindCommand || s.Kind == result.KindCapacity {
		cr.command, cr.named = true, map[string]bool{}
	}
	for i, g := range s.Gate {
		m, ok := metrics.Lookup(g.Metric)
		if !ok {
			return nil, fmt.Errorf("workload spec: gate[%d]: unknown metric %q", i, g.Metric)
		}
		if g.Tolerance < 0 {
			return nil, fmt.Errorf("workload spec: gate[%d] (%s): negative tolerance", i, g.Metric)
		}
		if cr.command {
			cr.named[g.Metric] = true
		}
		r, ok := rules[g.Metric]
		if !ok {
			r = Rule{Metric: g.Metric, Tolerance: DefaultTolerance(g.Metric)}
		}
		if g.Gated != nil {
			r.Gated = *g.Gated
			optOut[g.Metric] = !r.Gated
		} else if !ok {
			// Naming a metric in the gate list means gating it.
			r.Gated = true
		}
		if g.Tolerance > 0 {
			r.Tolerance = g.Tolerance
		}
		if r.Gated && m.Direction == metrics.Informational {
			return nil, fmt.Errorf("workload spec: gate[%d]: %s is informational and cannot be gated", i, g.Metric)
		}
		rules[g.Metric] = r
	}
	return cr, nil
}

// GatedIDs lists, sorted, the metric ids that rules (as Resolve returns
// them) gate.
func GatedIDs(rules map[string]Rule) []string {
	var out []string
	for id, r := range rules {
		if r.Gated {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
