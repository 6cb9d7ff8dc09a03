package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/bisect"
	"github.com/perfgate/perfgate/gate/redact"
)

// gitRange lists the commits of a bisection, oldest first: good, then
// every first-parent commit on the ancestry path from good to bad, bad
// last. First-parent, because a nightly's range is the merges main took:
// the commits inside a merged branch were never main, and a merge is
// what a revert would undo.
func gitRange(ctx context.Context, repo, good, bad string) ([]bisect.Commit, error) {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return out.String(), nil
	}
	var shas [2]string
	for i, ref := range []struct{ flag, ref string }{{"--good", good}, {"--bad", bad}} {
		out, err := git("rev-parse", "--verify", "--end-of-options", ref.ref+"^{commit}")
		if err != nil {
			return nil, fmt.Errorf("%s %s: not a commit in %s: %w", ref.flag, ref.ref, repo, err)
		}
		shas[i] = strings.TrimSpace(out)
	}
	if shas[0] == shas[1] {
		return nil, fmt.Errorf("--good and --bad are the same commit %s", shas[0])
	}
	if _, err := git("merge-base", "--is-ancestor", shas[0], shas[1]); err != nil {
		return nil, fmt.Errorf("--good %s is not an ancestor of --bad %s: give the older commit as --good", good, bad)
	}
	const format = "--format=%H%x1f%s%x1f%an <%ae>%x1e"
	first, err := git("log", "-1", format, shas[0])
	if err != nil {
		return nil, err
	}
	rest, err := git("log", "--first-parent", "--ancestry-path", "--reverse", format, shas[0]+".."+shas[1])
	if err != nil {
		return nil, err
	}
	cs := parseGitLog(first + rest)
	if len(cs) < 2 || cs[0].SHA != shas[0] || cs[len(cs)-1].SHA != shas[1] {
		return nil, fmt.Errorf("--bad %s is not on the first-parent line from --good %s (a commit inside a merged branch?): give the merge that brought it in", bad, good)
	}
	return cs, nil
}

// parseGitLog reads git log's records: id, subject and author separated
// by 0x1f, records ended by 0x1e.
func parseGitLog(s string) []bisect.Commit {
	var cs []bisect.Commit
	for _, rec := range strings.Split(s, "\x1e") {
		rec = strings.TrimSpace(rec)
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x1f", 3)
		c := bisect.Commit{SHA: f[0]}
		if len(f) > 1 {
			c.Subject = f[1]
		}
		if len(f) > 2 {
			c.Author = f[2]
		}
		cs = append(cs, c)
	}
	return cs
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
	cmd.Env = s.environ() // the command's environment, as a launched server's
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
