package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/redact"
)

// writeChunks writes s to b in pieces of n bytes, as a pipe delivers a
// long line.
func writeChunks(b *logBuffer, s string, n int) {
	for len(s) > 0 {
		k := min(n, len(s))
		b.Write([]byte(s[:k]))
		s = s[k:]
	}
}

// TestLogBufferLongLineScrubbedWhole is issue 20 item 9: a log line over
// 64 KiB (the tail size) was written to the file in pieces scrubbed one
// by one, so a secret across a piece boundary reached server.log whole,
// and the tail was cut before it was scrubbed, leaving the secret's end.
func TestLogBufferLongLineScrubbedWhole(t *testing.T) {
	const secret = "pg-secret-value-0123456789"
	const start, chunk, long = "start\n", 4096, 200 << 10
	// Where the secret starts in the line: across the 64 KiB-and-a-chunk
	// pieces the file got (a piece was written once more than 64 KiB was
	// pending), across the start of the 64 KiB tail, and beside them.
	total := len(start) + long + len(secret) + 1 + len("end ") + 10
	atTailCut := total - tailBytes - 10 - len(start)
	for _, at := range []int{17*chunk - 10 - len(start), 34*chunk - 10 - len(start), atTailCut, tailBytes - 7, 150 << 10} {
		line := strings.Repeat("a", at) + secret + strings.Repeat("b", long-at) + "\n"
		var file bytes.Buffer
		b := newLogBuffer(&file, tailBytes, redact.NewScrubber(secret))
		writeChunks(b, start+line+"end "+secret[:10], chunk)
		tail := b.Tail(3)
		writeChunks(b, secret[10:]+"\n", 4096)
		b.flush()
		for name, got := range map[string]string{"file": file.String(), "tail": tail, "tail after": b.Tail(3)} {
			if strings.Contains(got, secret) || strings.Contains(got, secret[len(secret)-12:]) {
				t.Errorf("secret at %d: the %s holds it or its end", at, name)
			}
		}
		if !strings.Contains(file.String(), redact.Placeholder+strings.Repeat("b", 100)) || !strings.HasSuffix(file.String(), "end "+redact.Placeholder+"\n") {
			t.Errorf("secret at %d: the file lost text around it", at)
		}
	}
}

// TestLogBufferOverlongLineCut: a line past maxLine keeps its scrubbed
// beginning, drops the rest with a note saying so, and a secret across
// the cut leaves not even its beginning behind.
func TestLogBufferOverlongLineCut(t *testing.T) {
	const secret = "pg-secret-value-0123456789"
	var file bytes.Buffer
	b := newLogBuffer(&file, 1024, redact.NewScrubber(secret))
	b.maxLine = 4096
	cutAt := b.maxLine - 5 // the secret starts 5 bytes before the cut
	writeChunks(b, "x "+secret+" "+strings.Repeat("a", cutAt-len(secret)-3)+secret+strings.Repeat("c", 10000)+"\nnext line\n", 1000)
	got := file.String()
	if strings.Contains(got, secret[:5]+"\n") || strings.Contains(got, "a"+secret[:5]) || strings.Contains(got, secret) {
		t.Errorf("the kept part ends with the secret's beginning: ...%q", got[len(got)-200:])
	}
	if !strings.HasPrefix(got, "x "+redact.Placeholder+" aaa") || !strings.Contains(got, "was dropped]\nnext line\n") {
		t.Errorf("file = %q...%q", got[:40], got[len(got)-120:])
	}
	if len(got) > b.maxLine+200 {
		t.Errorf("the file got %d bytes of a line cut at %d", len(got), b.maxLine)
	}
}
