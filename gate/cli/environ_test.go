package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
)

// testEnviron is the test process's environment (as TestMain left it: no
// GITHUB_* or ACTIONS_* variable, runner health off) with the "NAME=value"
// entries kv in place of any of the same name (of two in kv, the later
// wins). A test hands it to a
// command as Streams.Environ instead of calling t.Setenv: the command
// reads its variables from there, a server or tool it launches inherits
// exactly that environment (server.Config.BaseEnv, command.Spec.BaseEnv,
// fingerprint.ExecIn), so the test does not touch the process's and can
// run in parallel.
func testEnviron(kv ...string) []string {
	var env []string
	at := map[string]int{}
	for _, e := range append(os.Environ(), kv...) {
		k, _, _ := strings.Cut(e, "=")
		if i, ok := at[k]; ok {
			env[i] = e
			continue
		}
		at[k] = len(env)
		env = append(env, e)
	}
	return env
}

// mainIn runs perfgate with args in the environment env (nil: the test
// process's) and returns the exit code, stdout and stderr.
func mainIn(ctx context.Context, env []string, args ...string) (ExitCode, string, string) {
	var out, errw bytes.Buffer
	code := Main(ctx, args, Streams{In: strings.NewReader(""), Out: &out, Err: &errw, Environ: env})
	return code, out.String(), errw.String()
}

// runMainIn is runMain in the environment env.
func runMainIn(ctx context.Context, env []string, args ...string) (ExitCode, string, string) {
	return mainIn(ctx, env, append([]string{"run"}, args...)...)
}
