package github

import (
	"context"
	"strings"
	"testing"
)

const postMarker = "<!-- perfgate:h100 -->"

// poster runs Post against the fake API in one mode, as successive gate
// runs of one PR would.
type poster struct {
	t    *testing.T
	api  string
	mode CommentMode
}

func (p poster) post(body, verdict string, regressed ...string) CommentResult {
	p.t.Helper()
	c, err := NewClient(nil, p.api, testToken)
	if err != nil {
		p.t.Fatal(err)
	}
	st := NewState(verdict, regressed)
	res, err := Post(context.Background(), c, Target{Owner: "acme", Repo: "engine", PR: 7, Marker: postMarker}, body, p.mode, &st)
	if err != nil {
		p.t.Fatal(err)
	}
	return res
}

// TestPostOnChange: a new comment each time the verdict or the set of
// regressed cells changes, an edit in place while they stay the same
// (the cells' order does not matter), and always against the latest one.
func TestPostOnChange(t *testing.T) {
	fake, api := newFake(t)
	p := poster{t, api, CommentOnChange}
	steps := []struct {
		body, verdict string
		regressed     []string
		want          CommentAction
		newID         bool // a new comment, not the previous one
	}{
		{"regression in a", "regression", []string{"w:a"}, Created, true},
		{"regression in a, rerun", "regression", []string{"w:a"}, Updated, false},
		{"regression in a, rerun", "regression", []string{"w:a"}, Unchanged, false},
		{"regression in a and b", "regression", []string{"w:b", "w:a"}, Created, true},
		{"same set, other order", "regression", []string{"w:a", "w:b", "w:a"}, Updated, false},
		{"pass", "pass", nil, Created, true},
		{"pass again", "pass", nil, Updated, false},
		{"inconclusive", "inconclusive", nil, Created, true},
	}
	var last int64
	for i, s := range steps {
		res := p.post(s.body, s.verdict, s.regressed...)
		if res.Action != s.want || (s.newID == (res.ID == last)) {
			t.Fatalf("step %d (%s): %+v, want %s (new comment: %v, previous id %d)", i, s.body, res, s.want, s.newID, last)
		}
		last = res.ID
	}
	comments := fake.Comments(7)
	if len(comments) != 4 {
		t.Fatalf("%d comments, want 4 (one per change)", len(comments))
	}
	final := comments[3].Body
	if !strings.HasPrefix(final, "inconclusive\n\n<!-- perfgate-state v1 verdict=inconclusive ") || !strings.HasSuffix(final, postMarker+"\n") {
		t.Errorf("latest comment body = %q", final)
	}
	if got, ok := ParseState(comments[1].Body); !ok || got != NewState("regression", []string{"w:a", "w:b"}) {
		t.Errorf("state of the second comment = %+v, %v", got, ok)
	}
}

// TestPostOnChangeWithoutState: perfgate's comment from before the state
// line existed (or one edited so the line is unreadable) counts as changed.
func TestPostOnChangeWithoutState(t *testing.T) {
	fake, api := newFake(t)
	old := fake.AddComment(7, "github-actions[bot]", "**Regression**\n\n"+postMarker+"\n")
	res := poster{t, api, CommentOnChange}.post("pass", "pass")
	if res.Action != Created || res.ID == old {
		t.Fatalf("Post = %+v, want a new comment beside %d", res, old)
	}
}

// TestPostNotPass: a passing run creates no comment, a failing one does,
// and a later pass updates it so the fixed regression does not linger.
func TestPostNotPass(t *testing.T) {
	fake, api := newFake(t)
	p := poster{t, api, CommentNotPass}
	if res := p.post("pass", "pass"); res.Action != Skipped || !strings.Contains(res.Reason, "not-pass") {
		t.Fatalf("first pass: %+v, want skipped", res)
	}
	if n := fake.Count("POST", `/repos/acme/engine/issues/7/comments`); n != 0 {
		t.Fatalf("%d comments created for a passing run", n)
	}
	first := p.post("regression", "regression", "w:a")
	if first.Action != Created {
		t.Fatalf("regression: %+v, want created", first)
	}
	if res := p.post("pass", "pass"); res.Action != Updated || res.ID != first.ID {
		t.Fatalf("pass after the regression: %+v, want update of %d", res, first.ID)
	}
	if res := p.post("run failed", "run-failed"); res.Action != Updated || res.ID != first.ID {
		t.Fatalf("run failed: %+v, want update of %d", res, first.ID)
	}
}

// TestPostAlwaysEditsLatest: mode always never adds a comment once one
// exists, whatever the state, and edits the latest of several perfgate
// comments (on-change may have left more than one), not the oldest.
func TestPostAlwaysEditsLatest(t *testing.T) {
	fake, api := newFake(t)
	fake.AddComment(7, "github-actions[bot]", "old\n"+postMarker)
	latest := fake.AddComment(7, "github-actions[bot]", "newer\n"+postMarker)
	fake.AddComment(7, "alice", "quoting it: "+postMarker)
	p := poster{t, api, CommentAlways}
	for _, v := range []string{"regression", "pass"} {
		if res := p.post(v, v); res.Action != Updated || res.ID != latest {
			t.Fatalf("%s: %+v, want update of %d", v, res, latest)
		}
	}
	if n := len(fake.Comments(7)); n != 3 {
		t.Errorf("%d comments, want the 3 there were", n)
	}
}

func TestPostRefusesBadMode(t *testing.T) {
	c, err := NewClient(nil, "http://127.0.0.1:1", testToken)
	if err != nil {
		t.Fatal(err)
	}
	tgt := Target{Owner: "acme", Repo: "engine", PR: 7, Marker: postMarker}
	if _, err := Post(context.Background(), c, tgt, "x", "sometimes", nil); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := Post(context.Background(), c, tgt, "x", CommentOnChange, nil); err == nil || !strings.Contains(err.Error(), "state") {
		t.Errorf("on-change without a state: %v", err)
	}
	if res, err := Post(context.Background(), c, tgt, "x", CommentNever, nil); err != nil || res.Action != Skipped {
		t.Errorf("never: %+v, %v", res, err)
	}
}

func TestParseCommentMode(t *testing.T) {
	for in, want := range map[string]CommentMode{
		"always": CommentAlways, "TRUE": CommentAlways, "on-change": CommentOnChange,
		" not-pass ": CommentNotPass, "never": CommentNever, "false": CommentNever, "": CommentNever,
	} {
		if got, err := ParseCommentMode(in); err != nil || got != want {
			t.Errorf("ParseCommentMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseCommentMode("on_change"); err == nil {
		t.Error("ParseCommentMode(on_change): no error")
	}
}
