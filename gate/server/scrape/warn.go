package scrape

import "fmt"

// Margin is how far the client's mean TTFT may exceed the server's before
// perfgate warns. Both must be exceeded: the absolute part ignores
// sub-millisecond servers, the relative part long prefills.
type Margin struct {
	AbsMs    float64 // milliseconds
	Relative float64 // fraction of the server's mean
}

// DefaultTTFTMargin: on loopback or a LAN the client adds a few
// milliseconds (HTTP, JSON, the first chunk's trip); 50 ms and 25 % more
// than that means the client or the network is part of what was measured.
var DefaultTTFTMargin = Margin{AbsMs: 50, Relative: 0.25}

// TTFTWarning compares the client's mean TTFT with the server's own
// (vllm:time_to_first_token_seconds over the same trial), both in ms. It
// returns a warning for Trial.Warnings when the client's exceeds the
// server's by more than m (DefaultTTFTMargin when zero), or "".
func TTFTWarning(clientMs, serverMs float64, m Margin) string {
	if m == (Margin{}) {
		m = DefaultTTFTMargin
	}
	if clientMs <= 0 || serverMs < 0 {
		return ""
	}
	gap := clientMs - serverMs
	if gap <= m.AbsMs || gap <= m.Relative*serverMs {
		return ""
	}
	return fmt.Sprintf("client TTFT mean %.1f ms exceeds the server's %.1f ms by %.1f ms: the client or the network may be the bottleneck, not the server",
		clientMs, serverMs, gap)
}
