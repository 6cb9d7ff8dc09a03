package bootstrap

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/redact"
)

// Setup is what init was told or detected: everything perfgate.yaml says
// besides the plan.
type Setup struct {
	Profile string
	// Workloads are the workload files, relative to perfgate.yaml.
	Workloads []string
	// Engine is the detected engine ("" when the command named none).
	Engine string
	// ServerCommand launches the server, one argument per element.
	ServerCommand []string
	// ServerEnv is init's --server-env (NAME=value): the PR check, the
	// nightly and the release launch the server with it too. A secret
	// (redact.Name) is not written, only named: the launched server
	// inherits it from the runner's environment.
	ServerEnv []string
	// Restarts and TrialsPerRestart are the calibration's.
	Restarts, TrialsPerRestart int
	// Baselines is the store as perfgate.yaml names it: a directory in
	// the tree, or git:<branch> (the nightly's); "" is "baselines".
	Baselines string
}

// Config renders a commented perfgate.yaml. With a nil plan (before
// calibration) it holds the policy's defaults; with the plan, the
// tolerances, trials and A/B blocks init chose, and why.
func Config(s Setup, p *Plan) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# perfgate.yaml, written by `perfgate init` (docs/init.md). Every key is\n")
	w("# optional; flags and PERFGATE_* variables override it. `perfgate config`\n")
	w("# prints the effective result. Reference: docs/action.md.\n\n")
	w("# The hardware + model + serving config the baselines belong to:\n# baselines/<profile>/ holds them and the calibration.\n")
	w("profile: %s\n\n", quote(s.Profile))
	w("# Workload files, relative to this file (docs/workloads.md).\nworkloads:\n")
	for _, wl := range s.Workloads {
		w("  - %s\n", quote(wl))
	}
	w("\n")
	switch store := s.Baselines; {
	case strings.HasPrefix(store, "git:"):
		w("# The baselines, their history and the calibration live on a branch that\n# only the nightly and release workflows push to; the PR check reads it\n# with git, so a pull request cannot change what it is judged against\n# (docs/baselines.md).\nbaselines: %s\n", quote(store))
	case store == "":
		w("baselines: baselines\n")
	default:
		w("# The baselines live in the tree: a change to them is a reviewed diff\n# (docs/baselines.md).\nbaselines: %s\n", quote(store))
	}
	w("output: perfgate-out\n\n")
	w("server:\n")
	w("  # perfgate launches the server for every run (a fresh start each time:\n")
	w("  # calibration and A/B restart it), waits for it to be ready and stops it.\n")
	w("  command: [")
	for i, a := range s.ServerCommand {
		if i > 0 {
			w(", ")
		}
		w("%s", strconv.Quote(a))
	}
	w("]\n")
	writeEnv(w, s.ServerEnv)
	if s.Engine != "" {
		w("  # Detected from the command.\n  engine: %s\n", s.Engine)
	} else {
		w("  # The command named no engine perfgate knows: it is detected from the\n  # server's answers (set vllm, sglang, ... to pin it).\n  engine: auto\n")
	}
	w("  ready_timeout: 10m\n\n")
	w("policy:\n  # Bound on the chance that an unchanged build is reported as a\n  # regression, over every gated metric of every workload in one run.\n  alpha: 0.01\n")
	if p != nil {
		w("  # Tolerances: a change smaller than this is never a regression.\n")
		switch p.Mode {
		case Widened, RestartedWidened:
			w("  # Raised by init to what calibration shows decidable: a single\n  # candidate session cannot resolve less than the between-session noise.\n  # Lower them as the nightly history grows (perfgate calibrate prints\n  # what each would need).\n")
		default:
			w("  # Calibration shows each decidable by the PR check init chose.\n")
		}
		w("  tolerances:\n")
		ids := make([]string, 0, len(p.Tolerances))
		for id := range p.Tolerances {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			w("    %s: %s\n", id, tolerance(p.Tolerances[id]))
		}
		if len(p.Undecidable) > 0 {
			w("  # Undecidable on this runner (why: at the end of this file), so\n  # reported inconclusive with what would decide them: %s.\n", strings.Join(p.Undecidable, ", "))
		}
	}
	w("\n")
	trials := 5
	if p != nil && p.Trials > 0 {
		trials = p.Trials
	}
	w("trials:\n  # Trials per workload before the first comparison")
	if p != nil {
		w(" (init: what the\n  # tolerances need)")
	}
	w(".\n  min: %d\n  max: %d\n  budget: 30m\n", trials, 2*trials)
	if p != nil && (p.Mode == Restarted || p.Mode == RestartedWidened) {
		w("  # Server starts the first trials are spread over (perfgate launches the\n  # server): each is a session, so the between-session noise shrinks as\n  # 1/restarts without a second build (docs/statistics.md, Restarts).\n")
		w("  restarts: %d\n", p.Restarts)
	}
	w("\n")
	w("calibrate:\n  # perfgate calibrate: server starts and trials per start. It writes\n  # baselines/<profile>/calibration/noise.json (docs/calibrate.md).\n")
	w("  restarts: %d\n  trials: %d\n", s.Restarts, s.TrialsPerRestart)
	if p != nil && p.Mode == AB {
		w("\nab:\n  # The PR check is an interleaved A/B (perfgate ab, docs/ab.md): %d blocks of\n  # %d trials decide every gated metric at its tolerance.\n", p.Blocks, p.BlockTrials)
		w("  blocks: %d\n  block_trials: %d\n  max_blocks: %d\n", p.Blocks, p.BlockTrials, 2*p.Blocks)
	}
	if p != nil {
		w("\n# Why this PR check (perfgate init):\n")
		for _, line := range wrap(p.Why, 76) {
			w("#   %s\n", line)
		}
	}
	return []byte(b.String())
}

// quote writes a string as YAML: plain when it is safe, else JSON-quoted.
func quote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./@", r)) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// tolerance writes a tolerance as the configuration reads it: a bare
// fraction below 1, a percentage from 100 % up (a bare 1.5 is refused as
// ambiguous).
func tolerance(t float64) string {
	t = math.Round(t*1e4) / 1e4
	if t < 1 {
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return strconv.FormatFloat(100*t, 'f', -1, 64) + "%"
}

// writeEnv writes server.env: the entries that hold no secret, and a
// comment naming the ones left out, which the server inherits from the
// runner's environment instead (a committed file must not hold a token).
func writeEnv(w func(string, ...any), env []string) {
	var kept, secret []string
	for _, e := range env {
		name, value, _ := strings.Cut(e, "=")
		if redact.EnvValue(name, value) != value {
			secret = append(secret, name)
			continue
		}
		kept = append(kept, strconv.Quote(e))
	}
	if len(kept) > 0 {
		w("  env: [%s]\n", strings.Join(kept, ", "))
	}
	if len(secret) > 0 {
		w("  # Not written here (secrets): %s; set them in the runner's environment\n  # (a job env: from secrets), which the launched server inherits.\n", strings.Join(secret, ", "))
	}
}
