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

// FuzzLogBuffer: however a server's output is split into writes and
// however long its lines, neither the log file nor the tail ever holds
// the secret, and the file keeps every byte of lines that fit.
func FuzzLogBuffer(f *testing.F) {
	f.Add("start\nkey SECRET in use\n", 3, uint8(7))
	f.Add(strings.Repeat("a", 90)+"SECRET"+strings.Repeat("b", 90)+"\nnext\n", 60, uint8(13))
	f.Add("SECRETSECRET\n\n\nSECRET", 1, uint8(1))
	f.Fuzz(func(t *testing.T, text string, at int, chunk uint8) {
		const secret = "pg-secret-xyz-123"
		if at < 0 || at > len(text) {
			at = len(text)
		}
		if strings.Contains(text, secret[:8]) || strings.Contains(text, secret[len(secret)-8:]) {
			return // the text spells a part of the secret itself
		}
		in := strings.ReplaceAll(text[:at], "SECRET", secret) + secret + strings.ReplaceAll(text[at:], "SECRET", secret)
		var file bytes.Buffer
		b := newLogBuffer(&file, 128, redact.NewScrubber(secret))
		b.maxLine = 64
		writeChunks(b, in, int(chunk%32)+1)
		tail := b.Tail(1000)
		b.flush()
		for name, got := range map[string]string{"file": file.String(), "tail": tail, "tail after flush": b.Tail(1000)} {
			if strings.Contains(got, secret) || strings.Contains(got, secret[:8]) || strings.Contains(got, secret[len(secret)-8:]) {
				t.Fatalf("the %s holds (part of) the secret: %q from %q", name, got, in)
			}
		}
		if len(in) <= b.maxLine && !strings.Contains(in, "\n") && file.String() != strings.ReplaceAll(in, secret, redact.Placeholder) {
			t.Fatalf("a short line changed: %q -> %q", in, file.String())
		}
	})
}
