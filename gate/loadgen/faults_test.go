package loadgen

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestNonStreamAndOversizedEvent: a 200 whose body is an HTML page is
// "not_event_stream" naming its Content-Type (it used to read as
// "truncated"), and a 20 MiB event fails its request (the 16 MiB limit used
// to be soft: the event was accepted). Both are recorded as data; the trial
// goes on.
func TestNonStreamAndOversizedEvent(t *testing.T) {
	kinds := []string{"", "html", "huge", ""}
	f := &fake{ttft: time.Millisecond, itl: time.Millisecond, behave: func(i int) string { return kinds[i%len(kinds)] }}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(4, 1, 0, 3), 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	if tr.Errors["not_event_stream"] != 1 || tr.Errors["bad_chunk"] != 1 || tr.Completed != 2 {
		t.Fatalf("completed %d, errors %v", tr.Completed, tr.Errors)
	}
	if s := tr.ErrorSamples["not_event_stream"]; !strings.HasPrefix(s, "not an event stream: Content-Type text/html; charset=utf-8: <html>") {
		t.Errorf("not_event_stream sample %q", s)
	}
	if s := tr.ErrorSamples["bad_chunk"]; !strings.Contains(s, "event exceeds the size limit") {
		t.Errorf("bad_chunk sample %q", s)
	}
}

func TestIsEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream":                true,
		"text/event-stream; charset=utf-8": true,
		"Text/Event-Stream":                true,
		"":                                 true, // no header: let the decoder decide
		"text/html":                        false,
		"application/json":                 false,
		"text/event-stream-ish":            false,
		";;;":                              false,
	} {
		if got := isEventStream(ct); got != want {
			t.Errorf("isEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8000":        "",
		"https://h/v1":                 "",
		"127.0.0.1:8000":               "127.0.0.1:8000: missing scheme: write http://127.0.0.1:8000",
		"localhost:8000":               "localhost:8000: missing scheme: write http://localhost:8000",
		"user:pw@host:1":               "[redacted]@host:1: missing scheme: write http://[redacted]@host:1",
		"ftp://user:pw@host/":          "ftp://[redacted]@host/: scheme must be http or https",
		"http://":                      "no host",
		"":                             "empty URL",
		"http://[::1:80":               "not a URL",
		"http://u:hunter2@[::1:80/x?k": "not a URL",
		// Issue 20, item 12: a port no socket can have used to wait out
		// the ready timeout.
		"http://127.0.0.1:99999":      "port 99999: must be 1-65535",
		"http://127.0.0.1:0":          "port 0: must be 1-65535",
		"http://u:pw@127.0.0.1:70000": "[redacted]@127.0.0.1:70000: port 70000",
		"http://127.0.0.1:":           "empty port",
		"http://[::1]:8000":           "",
	} {
		err := CheckURL(raw)
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("CheckURL(%q) = %v, want %q", raw, err, want)
		case err != nil && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "hunter2")):
			t.Errorf("CheckURL(%q) leaks the password: %v", raw, err)
		}
	}
}
