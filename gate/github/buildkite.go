package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// AgentRunner runs buildkite-agent with args and stdin; Publish uses
// RunAgent unless Options.Agent replaces it.
type AgentRunner func(ctx context.Context, stdin string, args ...string) error

// agentTimeout bounds one buildkite-agent call: an annotation is a small
// upload, and an artifact upload of a gate's output directory (results,
// reports, a server log) is megabytes.
const agentTimeout = 5 * time.Minute

// findAgent looks buildkite-agent up on the PATH that getenv gives (so a
// test's fake agent is found without changing the process environment).
func findAgent(getenv func(string) string) string {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "buildkite-agent")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// RunAgent returns an AgentRunner for the buildkite-agent binary at path.
// Its output goes nowhere but into the error of a failed call (trimmed).
func RunAgent(path string) AgentRunner {
	return func(ctx context.Context, stdin string, args ...string) error {
		ctx, cancel := context.WithTimeout(ctx, agentTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(out.String())
			if len(msg) > 500 {
				msg = msg[len(msg)-500:]
			}
			return fmt.Errorf("buildkite-agent %s: %w: %s", args[0], err, msg)
		}
		return nil
	}
}

// annotationStyle maps a verdict to a Buildkite annotation style.
func annotationStyle(verdict string) string {
	switch verdict {
	case "pass":
		return "success"
	case "inconclusive":
		return "warning"
	case "":
		return "info"
	}
	return "error"
}

// AnnotationContext is the annotation's context: one per profile, so a
// rerun replaces the annotation instead of adding one.
func AnnotationContext(profile string) string {
	if profile == "" {
		profile = "default"
	}
	var b strings.Builder
	for _, r := range profile {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return "perfgate-" + b.String()
}

// publishBuildkite puts the report on the build page as an annotation and
// uploads the output directory as artifacts. Without buildkite-agent on
// PATH it does neither and says so; a failed call is an error, never a
// change of the verdict.
func publishBuildkite(ctx context.Context, env Env, r Report, opts Options) ([]string, error) {
	run := opts.Agent
	if run == nil {
		path := findAgent(env.getenv)
		if path == "" {
			return []string{"Buildkite: no annotation or artifacts: buildkite-agent is not on PATH"}, nil
		}
		run = RunAgent(path)
	}
	var notes []string
	var errs []error
	ctxName := AnnotationContext(r.Profile)
	if err := run(ctx, r.Markdown, "annotate", "--style", annotationStyle(r.Verdict), "--context", ctxName); err != nil {
		errs = append(errs, err)
	} else {
		notes = append(notes, "Buildkite annotation "+ctxName+" written")
	}
	if opts.ArtifactDir != "" {
		glob := filepath.ToSlash(filepath.Join(opts.ArtifactDir, "**", "*"))
		if err := run(ctx, "", "artifact", "upload", glob); err != nil {
			errs = append(errs, err)
		} else {
			notes = append(notes, "Buildkite artifacts uploaded: "+glob)
		}
	}
	return notes, errors.Join(errs...)
}
