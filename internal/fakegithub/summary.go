package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// Summary is what the fake saw, for scripts: counts of successful comment
// requests by kind, refused requests, and the stored comments.
type Summary struct {
	Listed       int       `json:"listed"`
	Created      int       `json:"created"`
	Edited       int       `json:"edited"`
	Unauthorized int       `json:"unauthorized"`
	Failed       int       `json:"failed"` // other non-2xx answers
	Comments     []Comment `json:"comments"`
}

var (
	sumList = regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/\d+/comments$`)
	sumEdit = regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/comments/\d+$`)
)

// Summarize counts the requests s received.
func Summarize(s *Server) Summary {
	var sum Summary
	for _, r := range s.Requests() {
		if r.Path == "/user" {
			continue // who the token is: not a comment request
		}
		if r.Status == http.StatusUnauthorized {
			sum.Unauthorized++
			continue
		}
		if r.Status < 200 || r.Status > 299 {
			sum.Failed++
			continue
		}
		switch {
		case r.Method == http.MethodGet && sumList.MatchString(r.Path):
			sum.Listed++
		case r.Method == http.MethodPost && sumList.MatchString(r.Path):
			sum.Created++
		case r.Method == http.MethodPatch && sumEdit.MatchString(r.Path):
			sum.Edited++
		}
	}
	s.mu.Lock()
	for _, c := range s.comments {
		sum.Comments = append(sum.Comments, *c)
	}
	s.mu.Unlock()
	return sum
}

// WriteSummary writes Summarize(s) as JSON, or, for ?format=env, as
// key=value lines a shell script reads without a JSON tool; there
// ?marker=M adds marked=N, the number of comments whose body contains M.
func WriteSummary(w http.ResponseWriter, r *http.Request, s *Server) {
	sum := Summarize(s)
	if r.URL.Query().Get("format") != "env" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(sum)
		return
	}
	marked := 0
	if m := r.URL.Query().Get("marker"); m != "" {
		for _, c := range sum.Comments {
			if strings.Contains(c.Body, m) {
				marked++
			}
		}
	}
	// first_line is the newest comment's first line: what a reviewer reads.
	first := ""
	if n := len(sum.Comments); n > 0 {
		first, _, _ = strings.Cut(sum.Comments[n-1].Body, "\n")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "listed=%d\ncreated=%d\nedited=%d\nunauthorized=%d\nfailed=%d\ncomments=%d\nmarked=%d\nfirst_line=%s\n",
		sum.Listed, sum.Created, sum.Edited, sum.Unauthorized, sum.Failed, len(sum.Comments), marked, first)
}
