package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pagedAPI serves one PR's comment listing with whatever Link header and
// page contents the fuzzer chose, and counts the requests Upsert makes.
type pagedAPI struct {
	mu       sync.Mutex
	link     string // Link header; {next} and {host} are filled in per page
	pages    int    // pages that carry comments
	markerAt int    // page (1-based) whose last comment carries the marker, 0: none
	requests int
	edited   int64 // id PATCHed, 0: none
}

func (p *pagedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	switch r.Method {
	case http.MethodGet:
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		var list []map[string]any
		if page <= p.pages {
			for i := 0; i < 3; i++ {
				body := fmt.Sprintf("comment %d of page %d", i, page)
				if page == p.markerAt && i == 2 {
					body += "\n<!-- m -->"
				}
				list = append(list, map[string]any{"id": page*10 + i, "body": body, "user": map[string]any{"login": "github-actions[bot]", "type": "Bot"}})
			}
		}
		link := strings.ReplaceAll(p.link, "{next}", strconv.Itoa(page+1))
		w.Header().Set("Link", strings.ReplaceAll(link, "{host}", r.Host))
		_ = json.NewEncoder(w).Encode(list)
	case http.MethodPatch:
		id, _ := strconv.ParseInt(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], 10, 64)
		p.edited = id
		fmt.Fprintf(w, `{"id": %d}`, id)
	case http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id": 999}`)
	default:
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}
}

// FuzzCommentPages walks PR comment listings whose Link headers the
// fuzzer writes (go-github parses them; findMarked follows NextPage). The
// walk must end, within maxPages listings plus the edit or create, never
// panic, and edit only a comment that carries the marker.
func FuzzCommentPages(f *testing.F) {
	f.Add(`<http://{host}/repos/o/r/issues/1/comments?page={next}&per_page=100>; rel="next"`, uint8(3), uint8(2))
	f.Add(`<http://{host}/x?page=1>; rel="next"`, uint8(5), uint8(0))                                              // never advances
	f.Add(`<http://{host}/x?page={next}>; rel="next", <http://{host}/x?page=9>; rel="last"`, uint8(80), uint8(70)) // runs past maxPages
	f.Add(`<http://{host}/x?page=-3>; rel="next"`, uint8(1), uint8(1))
	f.Add(`garbage; rel=next`, uint8(2), uint8(1))
	f.Add(``, uint8(1), uint8(1))
	api := &pagedAPI{}
	srv := httptest.NewServer(api)
	f.Cleanup(srv.Close)
	c, err := NewClient(&http.Client{Timeout: 5 * time.Second}, srv.URL, testToken)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, link string, pages, markerAt uint8) {
		api.mu.Lock()
		api.link, api.pages, api.markerAt, api.requests, api.edited = link, int(pages), int(markerAt), 0, 0
		api.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := Upsert(ctx, c, "o", "r", 1, "<!-- m -->", "report")
		api.mu.Lock()
		defer api.mu.Unlock()
		if api.requests > maxPages+1 {
			t.Fatalf("%d requests for link %q", api.requests, link)
		}
		if err == nil && res.Action == Updated {
			if id := api.edited; id%10 != 2 || int(id/10) != api.markerAt {
				t.Fatalf("edited comment %d, but the marker is on page %d", id, api.markerAt)
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("Upsert hung: %v", err)
		}
	})
}
