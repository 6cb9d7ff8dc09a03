package sim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// start runs a simulator with cfg behind httptest and stops both at the
// end of the test.
func start(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	return startWith(t, cfg, Options{})
}

// startWith is start with the server's options.
func startWith(t *testing.T, cfg Config, o Options) (*Server, string) {
	t.Helper()
	srv, err := NewServer(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return srv, ts.URL
}

func fastConfig(t *testing.T) Config {
	t.Helper()
	cfg, err := Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// post sends body to url+path and returns the status and the whole body.
func post(t *testing.T, url, path, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: reading body: %v", path, err)
	}
	return resp, b
}

func get(t *testing.T, url, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// events splits an SSE body into its data payloads, checking the framing
// strictly: every event is exactly one "data: " line ended by a blank line.
func events(t *testing.T, body []byte) []string {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("stream does not end with a blank line: %q", tail(body))
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		if !strings.HasPrefix(ev, "data: ") || strings.Contains(ev, "\n") {
			t.Fatalf("malformed SSE event %q", ev)
		}
		out = append(out, strings.TrimPrefix(ev, "data: "))
	}
	return out
}

func tail(b []byte) []byte { return b[max(0, len(b)-200):] }

// frame is the union of the fields a completion or chat chunk can carry.
type frame struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int    `json:"index"`
		Text  string `json:"text"`
		Delta *struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
		StopReason   *string `json:"stop_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
	SentNs int64 `json:"sim_sent_ns"`
}

// frames decodes every event but the final [DONE], which it requires.
func frames(t *testing.T, body []byte) []frame {
	t.Helper()
	evs := events(t, body)
	if len(evs) == 0 || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", tail(body))
	}
	out := make([]frame, 0, len(evs)-1)
	for _, ev := range evs[:len(evs)-1] {
		var f frame
		dec := json.NewDecoder(strings.NewReader(ev))
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		out = append(out, f)
	}
	return out
}

// waitFor polls cond for up to 5 s; tests use it instead of fixed sleeps.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
