package fakegithub

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The fake is tested with plain net/http requests, independently of the
// go-github client it stands in for.
func TestFakeCommentsAPI(t *testing.T) {
	fake := &Server{Prefix: "/api/v3", Token: "tok", Owner: "o", Repo: "r"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	do := func(method, path, auth, body string) (int, string, http.Header) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	if code, _, _ := do("GET", "/api/v3/repos/o/r/issues/1/comments", "Bearer wrong", ""); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	if code, _, _ := do("GET", "/repos/o/r/issues/1/comments", "Bearer tok", ""); code != 404 {
		t.Errorf("outside the prefix: %d", code)
	}
	if code, _, _ := do("POST", "/api/v3/repos/o/r/issues/1/comments", "Bearer tok", `{}`); code != 422 {
		t.Errorf("create without body: %d", code)
	}
	for i := 0; i < 3; i++ {
		if code, _, _ := do("POST", "/api/v3/repos/o/r/issues/1/comments", "Bearer tok", `{"body":"x"}`); code != 201 {
			t.Fatalf("create: %d", code)
		}
	}
	code, body, h := do("GET", "/api/v3/repos/o/r/issues/1/comments?per_page=2", "Bearer tok", "")
	var page []map[string]any
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil || len(page) != 2 || !strings.Contains(h.Get("Link"), `page=2`) {
		t.Errorf("page 1: %d %q %v link %q", code, body, err, h.Get("Link"))
	}
	id := int64(page[0]["id"].(float64))
	if code, _, _ := do("PATCH", "/api/v3/repos/o/r/issues/comments/"+itoa(id), "Bearer tok", `{"body":"y"}`); code != 200 {
		t.Errorf("edit: %d", code)
	}
	if code, _, _ := do("PATCH", "/api/v3/repos/o/r/issues/comments/999999", "Bearer tok", `{"body":"y"}`); code != 404 {
		t.Errorf("edit of a missing comment: %d", code)
	}
	sum := Summarize(fake)
	if sum.Created != 3 || sum.Edited != 1 || sum.Listed != 1 || sum.Unauthorized != 1 || sum.Failed != 2 || sum.Comments[0].Body != "y" {
		t.Errorf("summary %+v", sum)
	}
}

// TestFakeIdentity: a personal token is someone (GET /user), the
// workflow's app token is not allowed to ask, and either may edit only the
// comments it wrote.
func TestFakeIdentity(t *testing.T) {
	for _, login := range []string{"", "alice"} {
		fake := &Server{Token: "tok", Owner: "o", Repo: "r", Login: login}
		srv := httptest.NewServer(fake)
		human := fake.AddComment(1, "carol", "hi")
		do := func(method, path, body string) (int, string) {
			req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer tok")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		code, body := do("GET", "/user", "")
		switch {
		case login == "" && code != 403:
			t.Errorf("app token: GET /user = %d", code)
		case login != "" && (code != 200 || !strings.Contains(body, `"login":"alice"`) || !strings.Contains(body, `"type":"User"`)):
			t.Errorf("PAT: GET /user = %d %s", code, body)
		}
		_, body = do("POST", "/repos/o/r/issues/1/comments", `{"body":"x"}`)
		want := map[string]string{"": "github-actions[bot]", "alice": "alice"}[login]
		if !strings.Contains(body, `"login":"`+want+`"`) {
			t.Errorf("token of %q created %s", login, body)
		}
		if code, _ := do("PATCH", "/repos/o/r/issues/comments/"+itoa(human), `{"body":"edited"}`); code != 403 || fake.Comments(1)[0].Body != "hi" {
			t.Errorf("token of %q edited carol's comment: %d", login, code)
		}
		srv.Close()
	}
}

func TestWriteSummaryEnv(t *testing.T) {
	fake := &Server{Token: "tok", Owner: "o", Repo: "r"}
	fake.AddComment(1, "a", "hello <!-- m -->")
	fake.AddComment(1, "b", "other")
	rec := httptest.NewRecorder()
	WriteSummary(rec, httptest.NewRequest("GET", "/_fake/summary?format=env&marker=%3C%21--+m+--%3E", nil), fake)
	want := "listed=0\ncreated=0\nedited=0\nunauthorized=0\nfailed=0\ncomments=2\nmarked=1\nfirst_line=other\n"
	if rec.Body.String() != want {
		t.Errorf("summary = %q, want %q", rec.Body.String(), want)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
