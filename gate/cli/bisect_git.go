package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/bisect"
	"github.com/perfgate/perfgate/gate/git"
	"github.com/perfgate/perfgate/gate/redact"
)

// gitRange lists the commits of a bisection, oldest first, on the
// first-parent line from good to bad (git.Repo.FirstParentRange).
func gitRange(ctx context.Context, repo, good, bad string) ([]bisect.Commit, error) {
	cs, err := git.Repo{Dir: repo}.FirstParentRange(ctx, "--good", good, "--bad", bad)
	if err != nil {
		return nil, err
	}
	out := make([]bisect.Commit, len(cs))
	for i, c := range cs {
		out[i] = bisect.Commit{SHA: c.SHA, Subject: c.Subject, Author: c.Author}
	}
	return out, nil
}

// bisectBuild runs the build command for sha once: DIR/builds/<sha>.ok
// marks a build that succeeded (a rerun skips it), DIR/builds/<sha>.log
// holds its output. The build's own artifacts are where its command puts
// them ({sha} in the command keys them by commit).
func bisectBuild(ctx context.Context, s *Streams, argv []string, dir, sha string) error {
	if len(argv) == 0 {
		return nil
	}
	ok := filepath.Join(dir, "builds", sha+".ok")
	if _, err := os.Stat(ok); err == nil {
		return nil
	}
	logPath := filepath.Join(dir, "builds", sha+".log")
	log, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("build of %s: %w", shortSHA(sha), err)
	}
	defer log.Close()
	args := withSHA(argv, sha)
	fmt.Fprintf(s.Err, "bisect: building %s: %s\n", shortSHA(sha), strings.Join(redact.Argv(args), " "))
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build of %s: interrupted", shortSHA(sha))
		}
		return fmt.Errorf("build of %s failed (%v): its output is in %s; fix the build or narrow --good/--bad past it", shortSHA(sha), err, logPath)
	}
	if err := os.WriteFile(ok, []byte(strings.Join(redact.Argv(args), " ")+"\n"), 0o644); err != nil {
		return fmt.Errorf("build of %s: %w", shortSHA(sha), err)
	}
	return nil
}
