package git

import (
	"context"
	"strings"
	"testing"
)

// TestParseLog: subjects with separators of their own, authors, and the
// trailing record mark.
func TestParseLog(t *testing.T) {
	got := ParseLog("abc\x1ffix: a | b\x1fAda <a@x>\x1e\ndef\x1f\x1fBo <b@x>\x1e\n")
	if len(got) != 2 || got[0] != (Commit{SHA: "abc", Subject: "fix: a | b", Author: "Ada <a@x>"}) || got[1].SHA != "def" || got[1].Subject != "" {
		t.Errorf("ParseLog: %+v", got)
	}
}

// FuzzParseLog: any bytes git could print parse without panicking, and
// every commit keeps its id.
func FuzzParseLog(f *testing.F) {
	f.Add("abc\x1fsubject\x1fAda <a@x>\x1e\n")
	f.Add("\x1e\x1f\x1f\x1f\x1e")
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range ParseLog(s) {
			if strings.Contains(c.SHA, "\x1e") || strings.Contains(c.SHA, "\x1f") {
				t.Errorf("id %q holds a separator", c.SHA)
			}
		}
	})
}

// TestFirstParentRange: good first, bad last, the commits between in
// order; a reversed range and an option as a rev are refused.
func TestFirstParentRange(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	for _, m := range []string{"second", "third"} {
		if _, err := r.Run(ctx, "commit", "-q", "--allow-empty", "-m", m); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := r.FirstParentRange(ctx, "--good", "HEAD~2", "--bad", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 || cs[0].Subject != "first" || cs[1].Subject != "second" || cs[2].Subject != "third" || cs[2].Author != "t <t@example.invalid>" {
		t.Errorf("range %+v", cs)
	}
	if _, err := r.FirstParentRange(ctx, "--good", "HEAD", "--bad", "HEAD~2"); err == nil || !strings.Contains(err.Error(), "not an ancestor") {
		t.Errorf("reversed range: %v", err)
	}
	if _, err := r.FirstParentRange(ctx, "--good", "--output=/tmp/x", "--bad", "HEAD"); err == nil || !strings.Contains(err.Error(), "not a commit") {
		t.Errorf("an option as --good: %v", err)
	}
}
