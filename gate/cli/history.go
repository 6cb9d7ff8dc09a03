package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func init() { register(newHistoryCmd) }

// historyFlagKeys binds history's flags to configuration settings.
var historyFlagKeys = map[string]string{
	"profile":   "profile",
	"baselines": "baselines",
}

type historyOptions struct {
	configFile string
	format     string
	out        string
	cells      []string
	metrics    []string
}

// newHistoryCmd builds `perfgate history`: every cell's promoted runs,
// each gated metric's series and the steps found in it.
func newHistoryCmd(s *Streams) *cobra.Command {
	var o historyOptions
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Show each gated cell's baseline history and the steps detected in it",
		Long: `history reads baselines/<profile>/history/*.jsonl (one line per promoted
run) and shows, per workload cell, every run's level of each gated metric
and the steps detected in the series: binary segmentation over single
steps and step-and-returns, each a t test on the runs' levels that knows
their trials and the between-run noise, family-wise over every series shown
(docs/statistics.md, "Change points"). Each step names its first run
(commit, date) and its size with a 95 % interval.

The gated metrics are perfgate.yaml's (policy.gated) plus the cell's own
gate list from its baseline file; --metric replaces them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := config.Load(config.Options{File: o.configFile, Environ: s.environ(), Flags: cmd.Flags(), FlagKeys: historyFlagKeys})
			if err != nil {
				return &ExitError{Code: ExitInvalid, Err: err}
			}
			return runHistory(s, l, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.configFile, "config", "", "configuration file (default "+config.DefaultFile+" when it exists)")
	f.String("profile", "", "baseline profile")
	f.String("baselines", "", "baseline store root directory")
	f.StringVar(&o.format, "format", "text", "output format: text, markdown, csv, json or html (one self-contained page with SVG charts)")
	f.StringVarP(&o.out, "out", "o", "", "write to this file instead of standard output")
	f.StringSliceVar(&o.cells, "cell", nil, "show only these workload cells (repeatable)")
	f.StringSliceVar(&o.metrics, "metric", nil, "show these metric ids instead of the gated ones (repeatable)")
	return cmd
}

func runHistory(s *Streams, l *config.Loaded, o historyOptions) error {
	render := map[string]func(*bytes.Buffer, *history.Report) error{
		"text":     func(b *bytes.Buffer, r *history.Report) error { return history.Text(b, r) },
		"markdown": func(b *bytes.Buffer, r *history.Report) error { return history.Markdown(b, r) },
		"csv":      func(b *bytes.Buffer, r *history.Report) error { return history.CSV(b, r) },
		"json":     func(b *bytes.Buffer, r *history.Report) error { return history.JSON(b, r) },
		"html":     func(b *bytes.Buffer, r *history.Report) error { return history.HTML(b, r) },
	}[o.format]
	if render == nil {
		return exitf(ExitInvalid, "--format %q: want text, markdown, csv, json or html", o.format)
	}
	policy, err := gatePolicy(l)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	for _, id := range o.metrics {
		if !knownMetric(id) {
			return exitf(ExitInvalid, "--metric: unknown metric %q", id)
		}
	}
	cfg := l.Config
	root, closeBaselines, err := openBaselines(context.Background(), s, cfg.Baselines, false)
	if err != nil {
		return err
	}
	defer closeBaselines()
	store := baseline.Store{Root: root}
	cells, bases, err := loadHistory(store, cfg.Profile)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	if len(cells) == 0 {
		return exitf(ExitInvalid, "no history for profile %q in %s: `perfgate baseline update` writes it", cfg.Profile, store.Dir(cfg.Profile))
	}
	want := map[string]bool{}
	for _, c := range o.cells {
		want[c] = true
	}
	var shown []*history.Cell
	ids := map[string]bool{}
	for _, c := range cells {
		if len(want) > 0 && !want[c.Name] {
			continue
		}
		shown = append(shown, c)
		for _, id := range gatedIDs(policy, bases[c.Name], o.metrics) {
			ids[id] = true
		}
	}
	if len(shown) == 0 {
		return exitf(ExitInvalid, "--cell: no history for %v in profile %q", o.cells, cfg.Profile)
	}
	// The calibration's between-session noise lets a young history's
	// change-point test borrow strength, as in the gate.
	det := history.DefaultDetector()
	var baseList []*result.Result
	for _, c := range shown {
		if b := bases[c.Name]; b != nil {
			baseList = append(baseList, b)
		}
	}
	if det.Noise, err = noisePriors(store.Dir(cfg.Profile), baseList, s.Err); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	var b bytes.Buffer
	if err := render(&b, history.Build(cfg.Profile, shown, metricOrder(ids), det)); err != nil {
		return err
	}
	if o.out != "" {
		if err := result.WriteFileAtomic(o.out, b.Bytes()); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		return nil
	}
	_, err = s.Out.Write(b.Bytes())
	return err
}

// loadHistory reads the profile's baselines (when there are any) and
// history files, sorted by cell.
func loadHistory(store baseline.Store, profile string) ([]*history.Cell, map[string]*result.Result, error) {
	bases := map[string]*result.Result{}
	var list []*result.Result
	if _, err := os.Stat(store.Dir(profile)); err == nil {
		rs, err := result.ReadDir(store.Dir(profile))
		if err != nil {
			return nil, nil, fmt.Errorf("baselines: %w", err)
		}
		list = rs
		for _, r := range rs {
			bases[r.Workload.Cell] = r
		}
	}
	lines, err := store.Histories(profile, list)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	var cells []*history.Cell
	for name, ls := range lines {
		cells = append(cells, history.FromLines(name, ls))
	}
	sort.Slice(cells, func(i, j int) bool { return cells[i].Name < cells[j].Name })
	return cells, bases, nil
}

// gatedIDs are the metrics a cell is gated on: override when given, else
// the policy's gated rules with the baseline's own gate list applied.
func gatedIDs(p verdict.Policy, base *result.Result, override []string) []string {
	if len(override) > 0 {
		return override
	}
	var spec []byte
	if base != nil {
		spec = base.Workload.Spec
	}
	rules, err := p.Resolve(spec)
	if err != nil {
		rules, _ = p.Resolve(nil)
	}
	return verdict.GatedIDs(rules)
}

func knownMetric(id string) bool {
	_, ok := metrics.Lookup(id)
	return ok
}

// metricOrder sorts metric ids in the catalogue's report order.
func metricOrder(set map[string]bool) []string {
	rank := map[string]int{}
	for i, id := range metrics.All() {
		rank[id] = i
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, oki := rank[out[i]]
		rj, okj := rank[out[j]]
		if oki != okj {
			return oki
		}
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}
