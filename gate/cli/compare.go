package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/merge"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trust"
	"github.com/perfgate/perfgate/gate/verdict"
)

func init() { register(newCompareCmd) }

// compareOptions are the flags of perfgate compare.
type compareOptions struct {
	baseline, candidate string
	format, out         string
	configFile          string
	allowMissing        bool
	allowMismatch       bool
	// assumedBetween is --assumed-between; betweenSet says it was given.
	assumedBetween float64
	betweenSet     bool
}

// newCompareCmd builds `perfgate compare`: judge saved results against
// baselines without running anything, e.g. results imported from vLLM or
// downloaded from another CI job.
func newCompareCmd(s *Streams) *cobra.Command {
	var o compareOptions
	cmd := &cobra.Command{
		Use:   "compare --baseline FILE|DIR --candidate FILE|DIR",
		Short: "Compare result files with baselines and print the verdict",
		Long: `compare matches candidate and baseline result files by workload cell and
decides, per gated metric, regression / pass / improvement / inconclusive
(docs/statistics.md). A FILE is one result file; a DIR holds result files
(*.json), or is a perfgate output directory with a results/ folder.

Exit status: 0 pass (improvements included), 1 regression, 2 invalid input
(unreadable files, a workload changed since its baseline, a missing
baseline without --allow-missing, a different GPU or model without
--allow-mismatch), 4 inconclusive.

The policy (policy.alpha, policy.gated, policy.tolerances,
policy.assumed_between) is read from perfgate.yaml (or --config) and
PERFGATE_POLICY_* as perfgate gate reads it, so compare and gate --from judge
the same files alike. Results written by a gate that took extra looks are
judged at the look they record, at that look's share of alpha.

Several baseline files of one workload cell are several server sessions of
one baseline (a history segment): their level is the mean of the sessions
and their spread measures the between-session noise. Without such sessions
or a calibration the documented default between-session noise is assumed
(--assumed-between, or policy.assumed_between, overrides it; 0 when both
runs share one session).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.betweenSet = cmd.Flags().Changed("assumed-between")
			return runCompare(s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.baseline, "baseline", "", "baseline result file or directory (required)")
	f.StringVar(&o.candidate, "candidate", "", "candidate result file or directory (required)")
	f.StringVar(&o.configFile, "config", "", "configuration file whose policy applies (default "+config.DefaultFile+" when it exists)")
	f.StringVar(&o.format, "format", "text", "output format: text, markdown or json")
	f.StringVarP(&o.out, "out", "o", "", "write the report to this file instead of standard output")
	f.BoolVar(&o.allowMissing, "allow-missing", false, "compare what can be compared when a workload has no baseline (default: fail closed)")
	f.BoolVar(&o.allowMismatch, "allow-mismatch", false, "compare despite a different GPU model or count or served model")
	f.Float64Var(&o.assumedBetween, "assumed-between", 0, "between-session CV (a fraction, 0.02 = 2 %) assumed for every metric when not calibrated (default: the documented per-metric defaults)")
	return cmd
}

func runCompare(s *Streams, o compareOptions) error {
	switch {
	case o.baseline == "":
		return exitf(ExitInvalid, "--baseline is required")
	case o.candidate == "":
		return exitf(ExitInvalid, "--candidate is required")
	}
	switch o.format {
	case "text", "markdown", "json":
	default:
		return exitf(ExitInvalid, "--format %q: want text, markdown or json", o.format)
	}
	baseDir, closeBaselines, err := openBaselines(context.Background(), s, o.baseline, false)
	if err != nil {
		return err
	}
	defer closeBaselines()
	o.baseline = baseDir
	base, basePaths, err := compareLoad("--baseline", o.baseline, true)
	if err != nil {
		return err
	}
	cand, candPaths, err := compareLoad("--candidate", o.candidate, false)
	if err != nil {
		return err
	}
	l, err := config.Load(config.Options{File: o.configFile, Environ: s.environ()})
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(s.Err, "perfgate: warning: %s\n", w)
	}
	p, err := gatePolicy(l)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	p.AllowMissing, p.AllowMismatch = o.allowMissing, o.allowMismatch
	if p.Noise, err = noisePriors(o.baseline, base, s.Err); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	if o.betweenSet {
		if !(o.assumedBetween >= 0 && o.assumedBetween < 1) {
			return exitf(ExitInvalid, "--assumed-between %v: must be a fraction in [0, 1) (0.02 = 2 %%)", o.assumedBetween)
		}
		p.AssumedBetween = map[string]float64{"*": o.assumedBetween}
	}
	side, base, err := compareTrusted(o.baseline, l.Config, &p, base, s.now())
	if err != nil {
		return err
	}
	// Results of a gate that took extra looks are judged at that gate's
	// look alpha, as gate --from judges them (verdict.LookOf).
	// A share-of-saturation cell's comparison at the baseline's absolute
	// rate takes its baseline from the share cell's, as gate builds it.
	judged := base
	c, base, err := pipeline.CompareAtRates(base, cand, p, verdict.LookOf(cand, p))
	if err != nil {
		return exitf(ExitInvalid, "compare: %w", err)
	}
	if side != nil {
		if err := side.After(c, cand, judged, p); err != nil {
			return exitf(ExitInvalid, "compare: %w", err)
		}
	}
	d := &report.Data{
		Comparison:    c,
		Baselines:     compareByCell(base),
		Candidates:    compareByCell(cand),
		BaselinePaths: basePaths,
		ResultPaths:   candPaths,
	}
	compareAttachHistory(d, o.baseline, s.Err)
	explain.Attach(c, d.Baselines, d.Candidates, nil)
	if o.out == "" {
		if err := s.writeDocument(d, func(w io.Writer) error { return compareRender(w, o.format, d) }); err != nil {
			return err
		}
		return compareExit(c)
	}
	var buf bytes.Buffer
	if err := compareRender(&buf, o.format, d); err != nil {
		return err
	}
	if err := result.WriteFileAtomic(o.out, buf.Bytes()); err != nil {
		return exitf(ExitInvalid, "--out %s: %w", o.out, err)
	}
	fmt.Fprintf(s.Out, "%s\n(report written to %s)\n", report.Headline(d), o.out)
	return compareExit(c)
}

// compareTrusted applies the trusted side to baselines read from a
// baseline store (files with provenance) exactly as gate does without a
// merge base: the trusted rules and settings stored with them, and, when
// path is a profile directory with a history, each cell's baseline arm of
// the sessions of its current segment (trust.Before) and the drift guard
// after the comparison. Other baselines (result files that were never
// promoted) are compared as they are, with a nil side.
func compareTrusted(path string, cfg config.Config, p *verdict.Policy, base []*result.Result, now time.Time) (*trust.Side, []*result.Result, error) {
	promoted := false
	for _, b := range base {
		promoted = promoted || b.Provenance != nil
	}
	if !promoted {
		return nil, base, nil
	}
	dir, profile := "", ""
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		clean := filepath.Clean(path)
		dir, profile = filepath.Dir(clean), filepath.Base(clean)
	}
	if dir == "" || baseline.ValidateProfile(profile) != nil {
		side, judged := trust.Before(trust.Input{Baselines: base, Reference: history.Reference{Days: cfg.History.ReferenceDays, Runs: cfg.History.ReferenceRuns}, Now: now}, p)
		return side, judged, nil
	}
	cfg.Profile = profile
	return trustedSide(baseline.Store{Root: dir}, cfg, "", nil, p, base, now)
}

// compareLoad reads the result files at path (a file, a directory of
// result files, or an output directory with results/). Every error names
// the file; a result without trials is refused here, since it can only
// ever be "not compared".
// compareLoad reads one arm's result files. Two files of one cell are an
// error in the candidate (merge shards first); in the baseline they are
// sessions of one baseline (sessions set), and the path kept for the
// report is the last one read.
func compareLoad(flag, path string, sessions bool) ([]*result.Result, map[string]string, error) {
	srcs, err := merge.Read([]string{path})
	if err != nil {
		return nil, nil, exitf(ExitInvalid, "%s: %w", flag, err)
	}
	var rs []*result.Result
	paths := map[string]string{}
	for _, src := range srcs {
		if len(src.Result.Trials) == 0 {
			return nil, nil, exitf(ExitInvalid, "%s: %s: no trials in the result file", flag, src.Path)
		}
		if prev, dup := paths[src.Result.Workload.Cell]; dup && !sessions {
			return nil, nil, exitf(ExitInvalid, "%s: %s and %s both hold workload cell %q (run perfgate merge first)", flag, prev, src.Path, src.Result.Workload.Cell)
		}
		paths[src.Result.Workload.Cell] = src.Path
		rs = append(rs, src.Result)
	}
	return rs, paths, nil
}

func compareByCell(rs []*result.Result) map[string]*result.Result {
	m := make(map[string]*result.Result, len(rs))
	for _, r := range rs {
		m[r.Workload.Cell] = r
	}
	return m
}

func compareRender(w io.Writer, format string, d *report.Data) error {
	switch format {
	case "json":
		return report.JSON(w, d.Comparison)
	case "markdown":
		return report.Markdown(w, d, 0)
	}
	return report.Text(w, d)
}

// compareExit maps the verdict to the exit code. For an invalid verdict the
// error names each workload that could not be compared and why.
func compareExit(c *verdict.Comparison) error {
	switch c.Verdict {
	case verdict.Pass:
		return nil
	case verdict.Regression:
		return &ExitError{Code: ExitRegression}
	case verdict.Inconclusive:
		return &ExitError{Code: ExitInconclusive}
	}
	var why []string
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared && !w.Allowed {
			why = append(why, fmt.Sprintf("%s: %s", w.Cell, w.Message))
		}
	}
	why = append(why, c.Warnings...)
	return exitf(ExitInvalid, "not compared:\n  %s", strings.Join(why, "\n  "))
}
