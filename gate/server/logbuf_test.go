package server

import (
	"bytes"
	"strings"
	"testing"
)

func TestAnnouncedURL(t *testing.T) {
	tests := []struct{ line, want string }{
		{"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)", "http://127.0.0.1:8000"},
		{"127.0.0.1:41234", "http://127.0.0.1:41234"},
		{"listening on http://localhost:9000/", "http://localhost:9000"},
		{"serving on [::]:8080", "http://[::1]:8080"},
		{"https://10.0.0.5:443 ready", "https://10.0.0.5:443"},
		{"INFO 03-15 10:15:00 loading weights", ""}, // a time, not an address
		{"version 1.2.3.4:5", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := announcedURL(tt.line); got != tt.want {
			t.Errorf("announcedURL(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestLogBuffer(t *testing.T) {
	var file bytes.Buffer
	b := newLogBuffer(&file, 64, []string{"sk-secret"})
	b.Write([]byte("loading\nkey sk-secret in use\nUvicorn running on http://0.0.0.0:"))
	select {
	case u := <-b.addr:
		t.Fatalf("address found in a partial line: %s", u)
	default:
	}
	b.Write([]byte("8000 (Press CTRL+C)\n"))
	if u := <-b.addr; u != "http://127.0.0.1:8000" {
		t.Errorf("addr = %s", u)
	}
	for i := 0; i < 20; i++ {
		b.Write([]byte("line " + strings.Repeat("x", i) + "\n"))
	}
	tail := b.Tail(2)
	if tail != "line "+strings.Repeat("x", 18)+"\nline "+strings.Repeat("x", 19) {
		t.Errorf("Tail(2) = %q", tail)
	}
	if !strings.Contains(file.String(), "sk-secret") || !strings.HasPrefix(file.String(), "loading\n") {
		t.Errorf("the log file lost bytes: %q", file.String()[:40])
	}
	b2 := newLogBuffer(nil, 1024, []string{"sk-secret"})
	b2.Write([]byte("key sk-secret in use\n"))
	if got := b2.Tail(5); got != "key (redacted) in use" {
		t.Errorf("Tail did not redact: %q", got)
	}
}
