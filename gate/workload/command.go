package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// Workload kinds (the top-level kind key).
const (
	// KindServing drives an OpenAI-compatible server with requests (the
	// default).
	KindServing = result.KindServing
	// KindCommand runs a command once per trial, e.g. `vllm bench latency
	// ... --output-json {out}`, and reads its JSON output (package
	// gate/command).
	KindCommand = result.KindCommand
)

// Placeholders of Command.Argv, replaced per trial by the runner.
const (
	OutPlaceholder   = "{out}"
	TrialPlaceholder = "{trial}"
)

// Command is a kind: command workload's benchmark: argv (no shell) with
// {out} (the JSON file it must write) and {trial} (the 0-based trial
// index), variables added to the runner's environment, and a per-trial
// timeout (0: the runner's default).
type Command struct {
	Argv    []string          `json:"argv"`
	Env     map[string]string `json:"env,omitempty"`
	Timeout time.Duration     `json:"-"`
}

// IsCommand reports whether m is a kind: command cell.
func (m *Manifest) IsCommand() bool { return m.Kind == KindCommand }

// commandKeys are the top-level keys of a kind: command workload;
// servingOnly are the ones it must not have (it sends no requests).
var (
	commandKeys = []string{"name", "description", "kind", "command", "gpus", "trials", "gate"}
	servingOnly = map[string]bool{"api": true, "model": true, "dataset": true, "load": true,
		"sampling": true, "warmups": true, "timeout": true, "slo": true,
		"extra_body": true, "headers": true, "metric_percentiles": true}
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// workloadKind returns the value of the top-level kind key (KindServing
// when absent), reporting a value that is neither kind.
func (d *decoder) workloadKind(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return KindServing
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "kind" {
			continue
		}
		return d.oneOf(n.Content[i+1], "kind", KindServing, KindCapacity, KindCommand)
	}
	return KindServing
}

// commandWorkload decodes a kind: command workload: name, command and at
// least one gated rule. The default gated metrics are serving metrics a
// command does not produce, so without a rule of its own the workload
// would gate nothing and always pass.
func (d *decoder) commandWorkload(n *yaml.Node, f *File) {
	f.Kind = KindCommand
	var haveName, haveCommand bool
	rest := *n // the mapping without the serving keys, reported here
	rest.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; servingOnly[k.Value] {
			d.errorf(k.Line, "%s does not apply to a kind: command workload (it sends no requests)", k.Value)
			continue
		}
		rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
	}
	for _, fl := range d.mapping(&rest, "workload", commandKeys...) {
		v := fl.value
		switch fl.key {
		case "name":
			haveName = true
			d.name(v, fl.line, f)
		case "description":
			f.Description = d.text(v, "description")
		case "command":
			haveCommand = true
			d.command(v, &f.Command)
		case "gpus":
			f.GPUs = d.integer(v, "gpus", 1, 100000)
		case "trials":
			d.trials(v, &f.Trials)
		case "gate":
			d.gate(v, f)
		}
	}
	if !haveName {
		d.errorf(n.Line, "workload: missing required key name")
	}
	if !haveCommand {
		d.errorf(n.Line, "workload: kind: command needs a command block (argv with %s)", OutPlaceholder)
	}
	gated := false
	for _, r := range f.Gate {
		if m, ok := metrics.Lookup(r.Metric); ok && m.Direction != metrics.Informational && (r.Gated == nil || *r.Gated) {
			gated = true
		}
	}
	if len(d.errs) == 0 && !gated {
		d.errorf(n.Line, "workload: a kind: command workload needs a gate rule for one of its offline_* metrics, e.g. {metric: offline_latency_ms.p50, tolerance: 5%%} (the default gated metrics are serving metrics)")
	}
}

// command decodes the command block.
func (d *decoder) command(n *yaml.Node, c *Command) {
	haveArgv := false
	for _, fl := range d.mapping(n, "command", "argv", "env", "timeout") {
		v := fl.value
		switch fl.key {
		case "argv":
			haveArgv = true
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				d.errorf(v.Line, "command.argv must be a non-empty list of strings (no shell), got %s", describe(v))
				continue
			}
			out := false
			for i, item := range v.Content {
				n0 := len(d.errs)
				a := d.text(item, "command.argv")
				if len(d.errs) > n0 {
					continue
				}
				if i == 0 && strings.TrimSpace(a) == "" {
					d.errorf(item.Line, "command.argv: the program name is empty")
				}
				out = out || strings.Contains(a, OutPlaceholder)
				c.Argv = append(c.Argv, a)
			}
			if !out {
				d.errorf(v.Line, "command.argv has no %s placeholder: the command must write its JSON result to {out}", OutPlaceholder)
			}
		case "env":
			d.commandEnv(v, c)
		case "timeout":
			c.Timeout = d.duration(v, "command.timeout")
		}
	}
	if !haveArgv {
		d.errorf(n.Line, "command: missing required key argv")
	}
}

// commandEnv decodes command.env, a mapping of variable names to values.
func (d *decoder) commandEnv(n *yaml.Node, c *Command) {
	if !d.isMapping(n, "command.env") {
		return
	}
	c.Env = map[string]string{}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		switch prev, dup := seen[name]; {
		case k.Kind != yaml.ScalarNode || !envName.MatchString(name):
			d.errorf(k.Line, "command.env: %q is not a variable name", name)
		case dup:
			d.errorf(k.Line, "command.env: duplicate key %q (first at line %d)", name, prev)
		case redact.Name(name):
			d.errorf(k.Line, "command.env: %s looks like a secret; workload files are committed and stored in results, so let the command inherit it from the environment instead", name)
		default:
			seen[name] = k.Line
			c.Env[name] = d.text(v, "command.env."+name)
		}
	}
}

// commandHashVersion starts the canonical encoding of a command cell. It
// differs from hashVersion, so no command cell shares a hash with a
// serving cell.
const commandHashVersion = "perfgate.command/v1\n"

// expandCommand returns the single manifest of a kind: command file. Its
// hash covers argv and env (what is run), not the timeout, trials, gate
// rules or gpus (policy and reporting), like a serving cell's.
func (f *File) expandCommand() *Manifest {
	c := f.Command
	m := &Manifest{
		Name: f.Name, Cell: f.Name, Source: f.Path, Kind: KindCommand, Command: &c,
		Timeout: c.Timeout, Trials: f.Trials, Gate: f.Gate, GPUs: f.GPUs,
	}
	m.Spec = mustSpec(result.Spec{
		Kind: KindCommand, Name: f.Name, Cell: f.Name, Description: f.Description, GPUs: f.GPUs,
		Command: &result.Command{Argv: c.Argv, Env: c.Env}, TimeoutS: c.Timeout.Seconds(), Trials: f.Trials, Gate: f.Gate,
	})
	m.Hash = commandHash(&c)
	return m
}

// commandHash is the hex sha256 of commandHashVersion followed by the
// compact JSON of argv and env (encoding/json sorts the env's keys, so the
// order they were written in does not matter).
func commandHash(c *Command) string {
	b, _ := json.Marshal(Command{Argv: c.Argv, Env: c.Env})
	h := sha256.Sum256(append([]byte(commandHashVersion), b...))
	return hex.EncodeToString(h[:])
}
