package git

import (
	"context"
	"fmt"
	"strings"
)

// Commit is one commit of a range: its sha, subject and author
// ("Name <email>").
type Commit struct {
	SHA, Subject, Author string
}

// FirstParentRange lists the commits from good to bad, oldest first: good,
// then every first-parent commit on the ancestry path from good to bad, bad
// last. First-parent, because a nightly's range is the merges main took:
// the commits inside a merged branch were never main, and a merge is what a
// revert would undo. goodFlag and badFlag name where good and bad came from
// in errors (--good, --bad).
func (r Repo) FirstParentRange(ctx context.Context, goodFlag, good, badFlag, bad string) ([]Commit, error) {
	var shas [2]string
	for i, ref := range []struct{ flag, ref string }{{goodFlag, good}, {badFlag, bad}} {
		out, err := r.Run(ctx, "rev-parse", "--verify", "--end-of-options", ref.ref+"^{commit}")
		if err != nil {
			return nil, fmt.Errorf("%s %s: not a commit in %s: %w", ref.flag, ref.ref, r.Dir, err)
		}
		shas[i] = out
	}
	if shas[0] == shas[1] {
		return nil, fmt.Errorf("%s and %s are the same commit %s", goodFlag, badFlag, shas[0])
	}
	if _, err := r.Run(ctx, "merge-base", "--is-ancestor", "--end-of-options", shas[0], shas[1]); err != nil {
		return nil, fmt.Errorf("%s %s is not an ancestor of %s %s: give the older commit as %s", goodFlag, good, badFlag, bad, goodFlag)
	}
	const format = "--format=%H%x1f%s%x1f%an <%ae>%x1e"
	first, err := r.Run(ctx, "log", "-1", format, "--end-of-options", shas[0])
	if err != nil {
		return nil, err
	}
	rest, err := r.Run(ctx, "log", "--first-parent", "--ancestry-path", "--reverse", format, "--end-of-options", shas[0]+".."+shas[1])
	if err != nil {
		return nil, err
	}
	cs := ParseLog(first + "\x1e" + rest)
	if len(cs) < 2 || cs[0].SHA != shas[0] || cs[len(cs)-1].SHA != shas[1] {
		return nil, fmt.Errorf("%s %s is not on the first-parent line from %s %s (a commit inside a merged branch?): give the merge that brought it in", badFlag, bad, goodFlag, good)
	}
	return cs, nil
}

// ParseLog reads git log's records as FirstParentRange asks for them: sha,
// subject and author separated by 0x1f, records ended by 0x1e.
func ParseLog(s string) []Commit {
	var cs []Commit
	for _, rec := range strings.Split(s, "\x1e") {
		rec = strings.TrimSpace(rec)
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x1f", 3)
		c := Commit{SHA: f[0]}
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
