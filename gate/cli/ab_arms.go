package cli

import (
	"fmt"
	"maps"
	"strings"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/workload"
)

// abArm is one arm of `perfgate ab` as it runs: a server command launched
// for every block, or the URL of a server that is already up (resident),
// or, for kind: command workloads, the overlay on the workload's own
// benchmark command.
type abArm struct {
	// name is "a" or "b", the result files' Arm.
	name string
	// command is the server's argv with the arm's args appended; nil for
	// a resident server and for command workloads.
	command []string
	// env is NAME=value added to the server's environment (server.env,
	// then the arm's env, which wins).
	env []string
	// url is where the server serves: the resident server, or where a
	// launched one is measured when its log does not say.
	url string
	// bench is the overlay of kind: command workloads.
	bench abBench
	// engine is the server's engine profile (server.engine, else what
	// the arm's command names, else auto).
	engine engine.Name
}

// abBench overlays a kind: command workload's benchmark for one arm: argv
// replaces the workload's argv (--a-cmd), args are appended to it, env is
// added to its environment.
type abBench struct {
	argv []string
	args []string
	env  map[string]string
}

// resident reports whether the arm is a server already up: each arm is
// then one long-running session, so the verdict counts the between-session
// term (ab.Options.Resident).
func (a abArm) resident() bool { return a.command == nil && a.url != "" }

// abArms resolves the two arms from the configuration (perfgate.yaml's ab
// and server sections, with the flags already applied): an arm's own
// command, else server.command, with the arm's args appended and its env
// added; or, without any command, the arm's URL. Both arms must be of the
// same kind, so the blocks of the two arms are run the same way. With kind:
// command workloads (commands true) the arms overlay the benchmark command
// instead, and a URL means nothing.
func abArms(cfg config.Config, commands bool) ([2]abArm, error) {
	var arms [2]abArm
	for i, name := range []string{"a", "b"} {
		c := cfg.AB.A
		if name == "b" {
			c = cfg.AB.B
		}
		flag := "--" + name // the flag prefix, --a-cmd; ab.a.command in the file
		var err error
		if commands {
			arms[i], err = abBenchArm(name, flag, c)
		} else {
			arms[i], err = abServerArm(name, flag, c, cfg.Server)
		}
		if err != nil {
			return arms, err
		}
	}
	if !commands && arms[0].resident() != arms[1].resident() {
		return arms, fmt.Errorf("ab: arm a %s and arm b %s: both arms must be launched (a command for each block) or both already up (a URL each), so their blocks are alike",
			abArmKind(arms[0]), abArmKind(arms[1]))
	}
	return arms, nil
}

func abArmKind(a abArm) string {
	if a.resident() {
		return "is a server already up at " + a.url
	}
	return "is launched"
}

// abServerArm is a serving arm: launched per block when there is a
// command, resident at its URL otherwise.
func abServerArm(name, flag string, c config.ABArm, srv config.Server) (abArm, error) {
	arm := abArm{name: name, url: c.URL}
	if arm.url == "" {
		arm.url = srv.URL
	}
	cmd := c.Command
	if len(cmd) == 0 {
		cmd = srv.Command
	}
	if len(cmd) == 0 {
		if c.URL == "" {
			return arm, fmt.Errorf("ab: arm %s has no server: give %s-cmd, --server-cmd (with %s-env/%s-args overlays) or %s-url (ab.%s in %s)",
				name, flag, flag, flag, flag, name, config.DefaultFile)
		}
		if len(c.Env) > 0 || len(c.Args) > 0 {
			return arm, fmt.Errorf("ab: arm %s: %s-env and %s-args change a command perfgate launches; the server at %s is already up", name, flag, flag, c.URL)
		}
		arm.url = c.URL
		return arm, nil
	}
	arm.command = append(append([]string(nil), cmd...), c.Args...)
	arm.env = append(append([]string(nil), srv.Env...), c.Env...)
	if _, err := server.ParseEnv(arm.env); err != nil {
		return arm, fmt.Errorf("ab: arm %s: %s-env: %w", name, flag, err)
	}
	return arm, nil
}

// abBenchArm is an arm of kind: command workloads.
func abBenchArm(name, flag string, c config.ABArm) (abArm, error) {
	arm := abArm{name: name}
	if c.URL != "" {
		return arm, fmt.Errorf("ab: arm %s: %s-url: kind: command workloads run their own benchmark, they are measured at no URL", name, flag)
	}
	env, err := server.ParseEnv(c.Env)
	if err != nil {
		return arm, fmt.Errorf("ab: arm %s: %s-env: %w", name, flag, err)
	}
	if len(c.Command) > 0 && !abHasOut(c.Command) {
		return arm, fmt.Errorf("ab: arm %s: %s-cmd replaces the workload's benchmark command and must hold the %s placeholder for its output JSON", name, flag, workload.OutPlaceholder)
	}
	if len(env) == 0 {
		env = nil
	}
	arm.bench = abBench{argv: c.Command, args: c.Args, env: env}
	return arm, nil
}

func abHasOut(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, workload.OutPlaceholder) {
			return true
		}
	}
	return false
}

// manifest is m as the arm runs it: for a kind: command workload, a copy
// with the arm's benchmark overlay applied. The cell and its hash stay the
// workload's, so both arms' results are of one cell and compare; what the
// arm changed is in the result's fingerprint (server.argv, env.*).
func (a abArm) manifest(m *workload.Manifest) *workload.Manifest {
	if !m.IsCommand() || m.Command == nil {
		return m
	}
	c := *m.Command
	if len(a.bench.argv) > 0 {
		c.Argv = a.bench.argv
	}
	c.Argv = append(append([]string(nil), c.Argv...), a.bench.args...)
	c.Env = maps.Clone(c.Env)
	if c.Env == nil && len(a.bench.env) > 0 {
		c.Env = map[string]string{}
	}
	maps.Copy(c.Env, a.bench.env)
	cp := *m
	cp.Command = &c
	return &cp
}
