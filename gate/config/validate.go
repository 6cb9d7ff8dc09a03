package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
)

// problem is one invalid setting; Load prefixes it with the value's source.
type problem struct {
	key, msg string
}

// Validate checks the configuration's invariants; each error names the
// setting's key.
func (c Config) Validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, fmt.Errorf("%s: %s", p.key, p.msg))
	}
	return errors.Join(errs...)
}

// profileRe keeps profiles usable as a directory name and inside the PR
// comment's HTML marker (no "--", no ">" can end the comment early).
var profileRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func (c Config) problems() []problem {
	var ps []problem
	add := func(key, format string, args ...any) {
		ps = append(ps, problem{key, fmt.Sprintf(format, args...)})
	}
	if !profileRe.MatchString(c.Profile) || c.Profile == "." || c.Profile == ".." {
		add("profile", "%q must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit", c.Profile)
	}
	for i, w := range c.Workloads {
		if w == "" {
			add("workloads", "entry %d is empty", i+1)
		} else if _, err := filepath.Match(w, ""); err != nil {
			add("workloads", "%q is not a valid pattern: %v", w, err)
		}
	}
	if c.Baselines == "" {
		add("baselines", "must name a directory")
	}
	if c.Output == "" {
		add("output", "must name a directory")
	}
	if c.Server.URL != "" {
		if msg := checkURL(c.Server.URL); msg != "" {
			add("server.url", "%s", msg)
		}
	}
	if len(c.Server.Command) > 0 && c.Server.Command[0] == "" {
		add("server.command", "the program name is empty")
	}
	for i, e := range c.Server.Env {
		// The entry itself is not shown: a malformed one may hold a secret.
		if !envNameRe.MatchString(e) {
			add("server.env", "entry %d must be NAME=value with NAME made of letters, digits and '_'", i+1)
		}
	}
	if c.Server.GPUs < 0 || c.Server.GPUs > 100000 {
		add("server.gpus", "must be between 1 and 100000 (or 0: unknown), got %d", c.Server.GPUs)
	}
	if _, err := engine.Parse(c.Server.Engine); err != nil {
		add("server.engine", "%v", err)
	}
	ps = append(ps, c.Profiling.problems()...)
	ps = append(ps, c.Limits.problems()...)
	if c.Server.ReadyTimeout <= 0 {
		add("server.ready_timeout", "must be positive, got %v", c.Server.ReadyTimeout)
	}
	if c.History.ReferenceDays < 0 {
		add("history.reference_days", "must be 0 (off) or positive, got %v", c.History.ReferenceDays)
	}
	if c.History.ReferenceRuns < 1 {
		add("history.reference_runs", "must be at least 1, got %d", c.History.ReferenceRuns)
	}
	if !(c.Policy.Alpha > 0 && c.Policy.Alpha <= 0.5) {
		add("policy.alpha", "must be in (0, 0.5], got %v", c.Policy.Alpha)
	}
	if c.Trials.Min < 2 {
		add("trials.min", "must be at least 2 (a spread needs two trials), got %d", c.Trials.Min)
	}
	ids := slices.Sorted(maps.Keys(c.Policy.Tolerances))
	for _, id := range ids {
		if _, ok := metrics.Lookup(id); !ok {
			add("policy.tolerances", "unknown metric id %q", id)
		}
		if t := c.Policy.Tolerances[id]; !(t > 0 && t <= 1) {
			add("policy.tolerances", "%s: %v must be above 0 and at most 1 (100 %%; 0.03 = 3 %%)", id, t)
		}
	}
	between := slices.Sorted(maps.Keys(c.Policy.AssumedBetween))
	for _, id := range between {
		if _, ok := metrics.Lookup(id); !ok && id != "*" {
			add("policy.assumed_between", "unknown metric id %q (or \"*\" for every metric)", id)
		}
		if v := c.Policy.AssumedBetween[id]; !(v >= 0 && v < 1) {
			add("policy.assumed_between", "%s: %v must be a fraction in [0, 1) (0.02 = 2 %%)", id, v)
		}
	}
	seen := map[string]bool{}
	for _, id := range c.Policy.Gated {
		m, ok := metrics.Lookup(id)
		switch {
		case !ok:
			add("policy.gated", "unknown metric id %q", id)
		case m.Direction == metrics.Informational:
			add("policy.gated", "%q is informational (it has no better direction) and cannot be gated", id)
		case seen[id]:
			add("policy.gated", "%q is listed twice", id)
		}
		seen[id] = true
	}
	if c.Trials.Max < c.Trials.Min || c.Trials.Max > 1000 {
		add("trials.max", "must be between trials.min (%d) and 1000, got %d", c.Trials.Min, c.Trials.Max)
	}
	if _, ok := canonicalComment(c.GitHub.Comment); !ok {
		add("github.comment", "%q must be always, on-change, not-pass or never (true and false mean always and never)", c.GitHub.Comment)
	}
	if c.Trials.Restarts < 0 || c.Trials.Restarts > c.Trials.Min {
		add("trials.restarts", "must be between 0 and trials.min (%d): every server start needs a trial, got %d", c.Trials.Min, c.Trials.Restarts)
	}
	if c.Trials.Budget <= 0 {
		add("trials.budget", "must be positive, got %v (to run no extra trials set trials.max to trials.min)", c.Trials.Budget)
	}
	if c.Calibrate.Restarts < 3 || c.Calibrate.Restarts > 1000 {
		add("calibrate.restarts", "must be between 3 and 1000 (a between-session variance needs several sessions), got %d", c.Calibrate.Restarts)
	}
	if c.Calibrate.Trials < 2 || c.Calibrate.Trials > 1000 {
		add("calibrate.trials", "must be between 2 and 1000 (each session needs a spread of its own), got %d", c.Calibrate.Trials)
	}
	ps = append(ps, c.AB.problems()...)
	return ps
}

// problems checks the ab section: counts that cannot be negative, and arms
// whose URL, command and environment entries are checked as server.*'s.
func (a AB) problems() []problem {
	var ps []problem
	add := func(key, format string, args ...any) {
		ps = append(ps, problem{key, fmt.Sprintf(format, args...)})
	}
	for _, arm := range []struct {
		name string
		a    ABArm
	}{{"ab.a", a.A}, {"ab.b", a.B}} {
		if arm.a.URL != "" {
			if msg := checkURL(arm.a.URL); msg != "" {
				add(arm.name+".url", "%s", msg)
			}
		}
		if len(arm.a.Command) > 0 && arm.a.Command[0] == "" {
			add(arm.name+".command", "the program name is empty")
		}
		for i, e := range arm.a.Env {
			if !envNameRe.MatchString(e) {
				add(arm.name+".env", "entry %d must be NAME=value with NAME made of letters, digits and '_'", i+1)
			}
		}
	}
	if a.Blocks < 0 || a.Blocks%2 != 0 || a.Blocks > 1000 {
		add("ab.blocks", "must be an even number of blocks between 2 and 1000 (or 0: the default), got %d", a.Blocks)
	}
	if a.BlockTrials < 0 || a.BlockTrials > 1000 {
		add("ab.block_trials", "must be between 1 and 1000 (or 0: the default), got %d", a.BlockTrials)
	}
	if a.Seed < 0 {
		add("ab.seed", "must be 0 (the fixed ABBA BAAB order) or a positive seed, got %d", a.Seed)
	}
	if a.MaxBlocks < 0 || a.MaxBlocks > 1000 || (a.MaxBlocks > 0 && a.MaxBlocks < a.Blocks) {
		add("ab.max_blocks", "must be 0 (no extra blocks) or between ab.blocks (%d) and 1000, got %d", a.Blocks, a.MaxBlocks)
	}
	return ps
}

// checkURL returns why raw is not a usable server URL, or "": the
// loadgen's own check, so the configuration and the client agree.
func checkURL(raw string) string {
	if err := loadgen.CheckURL(raw); err != nil {
		return err.Error()
	}
	return ""
}
