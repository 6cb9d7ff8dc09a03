// Package fakegithub is an in-memory stand-in for the part of the GitHub
// REST API that perfgate uses: listing, creating and editing issue
// comments, and asking who the token belongs to. Tests of gate/github and the act self-test (.ci/act-selftest.sh,
// through cmd/fakegithub) point GITHUB_API_URL at it.
//
// It is written against net/http only, sharing no code with go-github, so a
// protocol mistake on the client side shows up as a failed request here.
// It checks the bearer token, paginates like GitHub (per_page up to 100,
// Link headers) and records every request.
package fakegithub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Comment is a stored issue comment.
type Comment struct {
	ID     int64  `json:"id"`
	Issue  int    `json:"-"`
	Body   string `json:"body"`
	Author string `json:"-"`
}

// Request is one request the fake received.
type Request struct {
	Method string
	Path   string // without the prefix
	Query  string
	Auth   string // the Authorization header as received
	Body   string
	Status int // the status code the fake answered with
}

// Server is the fake API. Mount it with http.StripPrefix-free routing: it
// matches paths that start with Prefix.
type Server struct {
	// Prefix is the API root path, e.g. "/api/v3" ("" for the root).
	Prefix string
	// Token is the only accepted bearer token.
	Token string
	// Owner and Repo name the only repository that exists.
	Owner, Repo string
	// Login is the account Token belongs to (a personal access token).
	// Empty: Token is the workflow's GITHUB_TOKEN, an app installation
	// token, for which GET /user answers 403 and which writes comments as
	// github-actions[bot]. Comments may be edited only by their author.
	Login string

	mu       sync.Mutex
	nextID   int64
	comments []*Comment
	requests []Request
}

// AddComment stores a comment as if someone had posted it earlier.
func (s *Server) AddComment(issue int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.comments = append(s.comments, &Comment{ID: s.nextID + 1000, Issue: issue, Body: body, Author: author})
	return s.nextID + 1000
}

// Comments returns a copy of the stored comments of issue, oldest first.
func (s *Server) Comments(issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == issue {
			out = append(out, *c)
		}
	}
	return out
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count returns how many received requests had method and a path matching
// the regular expression pathRe (anchored).
func (s *Server) Count(method, pathRe string) int {
	re := regexp.MustCompile("^" + pathRe + "$")
	n := 0
	for _, r := range s.Requests() {
		if r.Method == method && re.MatchString(r.Path) {
			n++
		}
	}
	return n
}

var (
	listRe = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`)
	editRe = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$`)
)

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	path, ok := strings.CutPrefix(r.URL.Path, s.Prefix)
	if !ok {
		writeError(rw, http.StatusNotFound, "no such API root")
		return
	}
	w := &statusWriter{ResponseWriter: rw, status: http.StatusOK}
	// Record the request before answering it: a client may inspect the
	// log as soon as it has the response, before this handler returns.
	// Only the status is filled in afterwards.
	s.mu.Lock()
	i := len(s.requests)
	s.requests = append(s.requests, Request{Method: r.Method, Path: path, Query: r.URL.RawQuery,
		Auth: r.Header.Get("Authorization"), Body: string(body)})
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.requests[i].Status = w.status
		s.mu.Unlock()
	}()

	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	if path == "/user" && r.Method == http.MethodGet {
		if s.Login == "" {
			writeError(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		writeJSON(w, http.StatusOK, s.user(s.Login))
		return
	}
	if m := listRe.FindStringSubmatch(path); m != nil {
		if m[1] != s.Owner || m[2] != s.Repo {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		issue, _ := strconv.Atoi(m[3])
		switch r.Method {
		case http.MethodGet:
			s.list(w, r, issue)
		case http.MethodPost:
			s.create(w, issue, body)
		default:
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		}
		return
	}
	if m := editRe.FindStringSubmatch(path); m != nil && r.Method == http.MethodPatch {
		id, _ := strconv.ParseInt(m[3], 10, 64)
		s.edit(w, id, body)
		return
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, issue int) {
	perPage, page := 30, 1
	if v, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && v > 0 {
		page = v
	}
	all := s.Comments(issue)
	start := min((page-1)*perPage, len(all))
	end := min(start+perPage, len(all))
	if end < len(all) {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(perPage))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
	}
	out := make([]map[string]any, 0, end-start)
	for _, c := range all[start:end] {
		out = append(out, s.render(c))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) render(c Comment) map[string]any {
	return map[string]any{
		"id":       c.ID,
		"body":     c.Body,
		"html_url": fmt.Sprintf("https://github.example/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, c.Issue, c.ID),
		"user":     s.user(c.Author),
	}
}

// user renders an account. Ids are derived from the login, so the same
// account has the same id in every listing, as on GitHub.
func (s *Server) user(login string) map[string]any {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	var id int64 = 7
	for _, c := range login {
		id = id*31 + int64(c)
	}
	return map[string]any{"login": login, "id": id & (1<<40 - 1), "type": typ}
}

// self is the author of the comments Token writes.
func (s *Server) self() string {
	if s.Login == "" {
		return "github-actions[bot]"
	}
	return s.Login
}

func (s *Server) create(w http.ResponseWriter, issue int, body []byte) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Body == nil {
		writeError(w, http.StatusUnprocessableEntity, "body is required")
		return
	}
	id := s.AddComment(issue, s.self(), *in.Body)
	for _, c := range s.Comments(issue) {
		if c.ID == id {
			writeJSON(w, http.StatusCreated, s.render(c))
		}
	}
}

func (s *Server) edit(w http.ResponseWriter, id int64, body []byte) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Body == nil {
		writeError(w, http.StatusUnprocessableEntity, "body is required")
		return
	}
	s.mu.Lock()
	var found *Comment
	for _, c := range s.comments {
		if c.ID == id {
			found = c
		}
	}
	if found != nil && found.Author != s.self() {
		s.mu.Unlock()
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	if found != nil {
		found.Body = *in.Body
	}
	var out Comment
	if found != nil {
		out = *found
	}
	s.mu.Unlock()
	if found == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	writeJSON(w, http.StatusOK, s.render(out))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}
