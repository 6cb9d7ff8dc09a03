package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	gh "github.com/google/go-github/v60/github"
	"github.com/perfgate/perfgate/internal/fakegithub"
)

const testToken = "ghs_TESTTOKEN123"

// newFake starts the fake API under a non-root prefix, as GHES serves it,
// so a client that ignores the BaseURL path fails.
func newFake(t *testing.T) (*fakegithub.Server, string) {
	t.Helper()
	fake := &fakegithub.Server{Prefix: "/api/v3", Token: testToken, Owner: "acme", Repo: "engine"}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return fake, srv.URL + "/api/v3"
}

func upsert(t *testing.T, apiURL, body string) CommentResult {
	t.Helper()
	c, err := NewClient(nil, apiURL, testToken)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Upsert(context.Background(), c, "acme", "engine", 7, "<!-- perfgate:h100 -->", body)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func jsonBody(t *testing.T, s string) string {
	t.Helper()
	var v struct{ Body string }
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("request body %q: %v", s, err)
	}
	return v.Body
}

func TestUpsertCreatesThenEdits(t *testing.T) {
	fake, api := newFake(t)
	fake.AddComment(7, "alice", "LGTM")

	first := upsert(t, api, "**Regression** in w: TPOT p50 +7.9 %\n")
	if first.Action != Created || first.ID == 0 || !strings.Contains(first.URL, "#issuecomment-") {
		t.Fatalf("first upsert = %+v, want created", first)
	}
	second := upsert(t, api, "**Pass**\n\n<!-- perfgate:h100 -->\n")
	if second.Action != Updated || second.ID != first.ID {
		t.Fatalf("second upsert = %+v, want update of %d", second, first.ID)
	}
	third := upsert(t, api, "**Pass**\n\n<!-- perfgate:h100 -->\n")
	if third.Action != Unchanged {
		t.Fatalf("third upsert = %+v, want unchanged", third)
	}

	reqs := fake.Requests()
	want := []struct{ method, path, body string }{
		{"GET", "/user", ""},
		{"GET", "/repos/acme/engine/issues/7/comments", ""},
		{"POST", "/repos/acme/engine/issues/7/comments", "**Regression** in w: TPOT p50 +7.9 %\n\n<!-- perfgate:h100 -->\n"},
		{"GET", "/user", ""},
		{"GET", "/repos/acme/engine/issues/7/comments", ""},
		{"PATCH", fmt.Sprintf("/repos/acme/engine/issues/comments/%d", first.ID), "**Pass**\n\n<!-- perfgate:h100 -->\n"},
		{"GET", "/user", ""},
		{"GET", "/repos/acme/engine/issues/7/comments", ""},
	}
	if len(reqs) != len(want) {
		t.Fatalf("got %d requests, want %d: %+v", len(reqs), len(want), reqs)
	}
	for i, w := range want {
		r := reqs[i]
		if r.Method != w.method || r.Path != w.path {
			t.Errorf("request %d = %s %s, want %s %s", i, r.Method, r.Path, w.method, w.path)
		}
		if r.Auth != "Bearer "+testToken {
			t.Errorf("request %d Authorization = %q", i, r.Auth)
		}
		if w.body != "" && jsonBody(t, r.Body) != w.body {
			t.Errorf("request %d body = %q, want %q", i, jsonBody(t, r.Body), w.body)
		}
		if r.Method == "GET" && r.Path != "/user" && !strings.Contains(r.Query, "per_page=100") {
			t.Errorf("request %d query %q: want per_page=100", i, r.Query)
		}
	}
	if got := fake.Comments(7); len(got) != 2 || got[1].Body != "**Pass**\n\n<!-- perfgate:h100 -->\n" {
		t.Errorf("comments after upserts: %+v", got)
	}
}

func TestUpsertFindsMarkerOnLaterPage(t *testing.T) {
	fake, api := newFake(t)
	for i := 0; i < 150; i++ {
		fake.AddComment(7, "alice", fmt.Sprintf("comment %d", i))
	}
	id := fake.AddComment(7, "github-actions[bot]", "old report\n<!-- perfgate:h100 -->")
	fake.AddComment(7, "bob", "<!-- perfgate:other-profile -->")

	res := upsert(t, api, "new report")
	if res.Action != Updated || res.ID != id {
		t.Fatalf("upsert = %+v, want update of %d", res, id)
	}
	if n := fake.Count("GET", `/repos/acme/engine/issues/7/comments`); n != 2 {
		t.Errorf("listed %d pages, want 2", n)
	}
	if n := fake.Count("POST", `.*`); n != 0 {
		t.Errorf("%d comments created, want 0", n)
	}
}

func TestUpsertPrefersBotOverQuotingHuman(t *testing.T) {
	fake, api := newFake(t)
	fake.AddComment(7, "carol", "> quoting\n> <!-- perfgate:h100 -->")
	id := fake.AddComment(7, "github-actions[bot]", "<!-- perfgate:h100 -->")
	if res := upsert(t, api, "x"); res.ID != id {
		t.Errorf("upsert edited %d, want the bot's %d", res.ID, id)
	}
}

// TestUpsertNeverEditsOthersComments (issue 14, defect 9): with the
// workflow's GITHUB_TOKEN (GET /user answers 403), a person's comment that
// carries the marker, quoted or pasted, is never edited; perfgate creates
// its own and edits that one from then on.
func TestUpsertNeverEditsOthersComments(t *testing.T) {
	fake, api := newFake(t)
	human := fake.AddComment(7, "carol", "pasted the report:\n<!-- perfgate:h100 -->")
	first := upsert(t, api, "report 1")
	if first.Action != Created || first.ID == human {
		t.Fatalf("upsert = %+v, want a new comment beside carol's %d", first, human)
	}
	if second := upsert(t, api, "report 2"); second.Action != Updated || second.ID != first.ID {
		t.Fatalf("second upsert = %+v, want an update of %d", second, first.ID)
	}
	if got := fake.Comments(7)[0]; got.ID != human || got.Body != "pasted the report:\n<!-- perfgate:h100 -->" {
		t.Errorf("carol's comment changed: %+v", got)
	}
	if n := fake.Count("PATCH", fmt.Sprintf("/repos/acme/engine/issues/comments/%d", human)); n != 0 {
		t.Errorf("%d edits of carol's comment", n)
	}
}

// TestUpsertWithPersonalToken: a personal token's account comes from GET
// /user; only its own marked comment is edited, not the bot's or another
// person's.
func TestUpsertWithPersonalToken(t *testing.T) {
	fake, api := newFake(t)
	fake.Login = "alice"
	fake.AddComment(7, "github-actions[bot]", "<!-- perfgate:h100 -->")
	fake.AddComment(7, "bob", "<!-- perfgate:h100 -->")
	own := fake.AddComment(7, "alice", "old\n<!-- perfgate:h100 -->")
	if res := upsert(t, api, "new"); res.Action != Updated || res.ID != own {
		t.Fatalf("upsert = %+v, want an update of alice's %d", res, own)
	}
}

// TestUpsertNeedsToKnowItself: when GitHub cannot say who the token is
// (a server error), nothing is edited or created on a guess.
func TestUpsertNeedsToKnowItself(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/user" {
			t.Errorf("request %s %s after /user failed", r.Method, r.URL.Path)
		}
		http.Error(w, `{"message":"boom"}`, http.StatusBadGateway)
	}))
	defer srv.Close()
	c, _ := NewClient(nil, srv.URL, testToken)
	_, err := Upsert(context.Background(), c, "acme", "engine", 7, "<!-- m -->", "x")
	if err == nil || !strings.Contains(err.Error(), "GET /user") {
		t.Fatalf("err = %v, want one naming GET /user", err)
	}
}

func TestUpsertRefusesOversizedBody(t *testing.T) {
	fake, api := newFake(t)
	c, _ := NewClient(nil, api, testToken)
	_, err := Upsert(context.Background(), c, "acme", "engine", 7, "<!-- perfgate:h100 -->", strings.Repeat("é", MaxCommentChars))
	if err == nil || !strings.Contains(err.Error(), "over GitHub's limit") {
		t.Fatalf("err = %v", err)
	}
	if len(fake.Requests()) != 0 {
		t.Error("requests were made for an oversized body")
	}
}

func TestUpsertStopsOnNonAdvancingPages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=1>; rel="next"`, r.Host, r.URL.Path))
		fmt.Fprint(w, "[]")
	}))
	defer srv.Close()
	c, _ := NewClient(nil, srv.URL, testToken)
	_, err := Upsert(context.Background(), c, "acme", "engine", 7, "<!-- m -->", "x")
	if err == nil {
		t.Fatal("want an error for a next page that does not advance")
	}
}

func TestNewClientRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "://"} {
		if _, err := NewClient(nil, u, ""); err == nil {
			t.Errorf("NewClient(%q) succeeded", u)
		}
	}
}

func TestMarker(t *testing.T) {
	if m, err := Marker("h100-llama.8b_v2"); err != nil || m != "<!-- perfgate:h100-llama.8b_v2 -->" {
		t.Errorf("Marker = %q, %v", m, err)
	}
	for _, bad := range []string{"", "a -->", "x>y", "-lead", "a b"} {
		if _, err := Marker(bad); err == nil {
			t.Errorf("Marker(%q) succeeded", bad)
		}
	}
}

// Upsert makes PR number pr of owner/repo carry exactly one comment with
// marker written by the token's own account: it edits the latest such
// comment, or creates one. It is Post in mode always without a state line.
func Upsert(ctx context.Context, c *gh.Client, owner, repo string, pr int, marker, body string) (CommentResult, error) {
	return Post(ctx, c, Target{Owner: owner, Repo: repo, PR: pr, Marker: marker}, body, CommentAlways, nil)
}
