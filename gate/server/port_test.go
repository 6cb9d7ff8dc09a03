package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLaunchPortInUse: when server.url's port already serves (another
// OpenAI-compatible server), the launch refuses before starting the
// command, naming the port; before, the command ran, perfgate probed and
// measured the other server, and the launched one's bind failure was
// reported as "exited with status 0 during the run".
func TestLaunchPortInUse(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"other-model"}]}`))
	}))
	defer other.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(other.URL, "http://"))
	marker := filepath.Join(t.TempDir(), "started")
	cfg := Config{Command: []string{"sh", "-c", `touch "$0"`, marker}, URL: other.URL, ReadyTimeout: 5 * time.Second}
	err := Supervise(context.Background(), cfg, nil, func(ctx context.Context, info Info) error {
		t.Errorf("the run went on against %s", info.URL)
		return nil
	})
	var pe *PortInUseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "port "+port) || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("Supervise = %v, want a *PortInUseError naming port %s", err, port)
	}
	if _, serr := os.Stat(marker); serr == nil {
		t.Error("the server command ran although its port was taken")
	}
	f, ok := FailureOf(err)
	if !ok || !f.BeforeReady || !strings.HasPrefix(f.Summary, "the server was not started: port "+port) {
		t.Errorf("FailureOf = %+v, %v", f, ok)
	}
}

// TestCheckPortFree: only this machine's addresses are checked, a free
// port passes, an unspecified listen address is checked on loopback, and
// a port freed within the grace (a server perfgate just stopped) passes.
func TestCheckPortFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, held, _ := net.SplitHostPort(l.Addr().String())
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, freePort, _ := net.SplitHostPort(free.Addr().String())
	free.Close()
	tests := []struct {
		url   string
		inUse bool
	}{
		{"", false},
		{"http://127.0.0.1:" + held, true},
		{"http://localhost:" + held + "/v1", true},
		{"http://0.0.0.0:" + held, true},
		{"http://127.0.0.1:" + freePort, false},
		{"http://gpu-box.invalid:" + held, false}, // a host name: not checked
		{"http://192.0.2.1:" + held, false},       // not this machine
	}
	for _, tt := range tests {
		err := checkPortFree(context.Background(), tt.url, 0)
		if (err != nil) != tt.inUse {
			t.Errorf("checkPortFree(%q) = %v, want in use %v", tt.url, err, tt.inUse)
		}
	}
	// Freed 300 ms in, well inside a 5 s grace.
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { l2.Close() })
	if err := checkPortFree(context.Background(), "http://"+l2.Addr().String(), 5*time.Second); err != nil {
		t.Errorf("a port freed within the grace: %v", err)
	}
}
