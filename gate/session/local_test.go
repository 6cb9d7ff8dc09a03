package session

import (
	"os"
	"testing"
)

// TestHealthLocal: only a server on this machine has its GPUs sampled.
func TestHealthLocal(t *testing.T) {
	name, _ := os.Hostname()
	tests := []struct {
		url   string
		local bool
	}{
		{"http://127.0.0.1:8000", true},
		{"http://localhost:8000/v1", true},
		{"http://[::1]:8000", true},
		{"http://0.0.0.0:8000", true},
		{"http://" + name + ":8000", true},
		{"http://192.0.2.7:8000", false}, // TEST-NET-1: never a local address
		{"http://[2001:db8::7]:8000", false},
		{"not a url\x7f", true},
	}
	for _, tt := range tests {
		if _, got := Local(tt.url); got != tt.local {
			t.Errorf("Local(%q) = %v, want %v", tt.url, got, tt.local)
		}
	}
}
