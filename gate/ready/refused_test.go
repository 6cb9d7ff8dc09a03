package ready

import (
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// closedURL is a loopback address nothing listens on: connections to it
// are refused.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestRefusedHint: a server perfgate did not start that refuses every
// connection gets one hint naming --url and --server-cmd after
// RefusedHintAfter, long before the ready timeout (before: only the
// periodic "waiting" line, 30 s in, said nothing of what to check). A
// launched server's refusals are its start-up (no hint); a server that
// answers, even 503, is not refusing.
func TestRefusedHint(t *testing.T) {
	f := &fake{health: 503, models: 200}
	up := httptest.NewServer(f.handler())
	defer up.Close()
	down := closedURL(t)
	tests := []struct {
		name     string
		url      string
		launched bool
		want     int
	}{
		{"attached, refused", down, false, 1},
		{"launched, refused", down, true, 0},
		{"attached, answering 503", up.URL, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hints bytes.Buffer
			_, err := Wait(context.Background(), Options{URL: tt.url, Timeout: 700 * time.Millisecond, Interval: 20 * time.Millisecond,
				Hints: &hints, Launched: tt.launched, RefusedHintAfter: 150 * time.Millisecond})
			if err == nil {
				t.Fatal("ready")
			}
			h := hints.String()
			if n := strings.Count(h, "nothing accepts connections"); n != tt.want {
				t.Fatalf("%d refusal hints, want %d: %q", n, tt.want, h)
			}
			if tt.want > 0 && (!strings.Contains(h, "--url") || !strings.Contains(h, "--server-cmd") || !strings.Contains(h, strings.TrimPrefix(down, "http://"))) {
				t.Errorf("hint %q does not name the address, --url and --server-cmd", h)
			}
		})
	}
}

// TestRefusedHintDefault: the hint comes within 30 s by default (the
// issue's bound), well inside the 2 m and 10 m ready timeouts.
func TestRefusedHintDefault(t *testing.T) {
	o := Options{}.withDefaults()
	if o.RefusedHintAfter <= 0 || o.RefusedHintAfter > 30*time.Second {
		t.Errorf("RefusedHintAfter default %v", o.RefusedHintAfter)
	}
}
