package server

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/gate/redact"
)

// logBuffer receives the server's stdout and stderr: it scrubs every
// line whole, copies it to an optional log file, keeps the last max bytes
// of scrubbed lines for error reports, and watches complete lines for the
// address the server announces.
//
// Lines are scrubbed whole because a secret cut in two is two strings
// neither of which the scrubber knows, and both halves together are the
// secret: once the file got an over-long line in 64 KiB pieces and the
// tail was cut before scrubbing, so a secret across a cut reached
// server.log, every ab block log and the tail (issue 20 item 9). Only
// scrubbed text is ever cut now, and a line is held until it ends, up to
// maxLine bytes; the rest of a longer line is dropped (see overflow).
type logBuffer struct {
	mu      sync.Mutex
	file    io.Writer // nil: no log file
	fileErr error
	// pending is the current, unterminated line, raw; at most maxLine
	// bytes.
	pending []byte
	// skipping is set while the rest of a line longer than maxLine is
	// dropped, until its newline.
	skipping bool
	dropped  int
	maxLine  int
	tail     []byte // scrubbed complete lines
	max      int
	partial  []byte // the current, unterminated line (for address discovery)
	addr     chan string
	found    bool
	scrub    *redact.Scrubber
}

// maxLogLine is the longest line of a server's log that is kept whole.
// vLLM's longest lines (its engine arguments, a request logged with its
// prompt) are tens of kilobytes; a line longer than this is cut, its
// kept part scrubbed whole.
const maxLogLine = 1 << 20

func newLogBuffer(file io.Writer, max int, scrub *redact.Scrubber) *logBuffer {
	return &logBuffer{file: file, max: max, maxLine: maxLogLine, addr: make(chan string, 1), scrub: scrub}
}

// scrubberFor knows the secrets a server launched with cfg may print: the
// values of secret variables in its whole environment (BaseEnv holds
// perfgate's own, GITHUB_TOKEN and ACTIONS_RUNTIME_TOKEN in CI, whether or
// not they are passed on) and in server.env, and the values of secret
// flags on its command line, the API key of the probes, and Secrets (the
// workloads' header values). The tail is what results and stderr record,
// so a server that logs its environment, arguments or request headers
// leaks none of them.
func scrubberFor(cfg Config) *redact.Scrubber {
	env := append([]string(nil), cfg.BaseEnv...)
	for k, v := range cfg.Env {
		env = append(env, k+"="+v)
	}
	return redact.ForProcess(env, cfg.Command).With(append([]string{cfg.APIKey}, cfg.Secrets...)...)
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines(p)
	if !b.found {
		b.partial = append(b.partial, p...)
		for {
			i := bytes.IndexByte(b.partial, '\n')
			if i < 0 {
				break
			}
			line := string(b.partial[:i])
			b.partial = b.partial[i+1:]
			if u := announcedURL(line); u != "" {
				b.found = true
				b.partial = nil
				b.addr <- u
				break
			}
		}
		if len(b.partial) > 64<<10 {
			b.partial = nil // a line this long announces nothing
		}
	}
	return len(p), nil
}

// lines adds p to the pending line and emits the lines p completes,
// scrubbed, in one piece per run of lines. A line that grows past maxLine
// is emitted cut (overflow) and the rest of it, up to its newline, is
// dropped.
func (b *logBuffer) lines(p []byte) {
	for len(p) > 0 {
		if b.skipping {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				b.dropped += len(p)
				return
			}
			b.dropped += i
			b.emit(fmt.Sprintf(" [line cut: perfgate keeps log lines up to %d bytes; the rest, %d bytes, was dropped]\n", b.maxLine, b.dropped))
			b.skipping, b.dropped = false, 0
			p = p[i+1:]
			continue
		}
		// cut: the end of the run of complete lines that each fit.
		cut, cur := -1, len(b.pending)
		for k, c := range p {
			if c == '\n' {
				cut, cur = k, 0
				continue
			}
			if cur++; cur > b.maxLine {
				break
			}
		}
		if cut >= 0 {
			b.pending = append(b.pending, p[:cut+1]...)
			b.emit(b.scrub.String(string(b.pending)))
			b.pending = b.pending[:0]
			p = p[cut+1:]
			continue
		}
		room := b.maxLine - len(b.pending)
		if len(p) <= room {
			b.pending = append(b.pending, p...)
			return
		}
		b.pending = append(b.pending, p[:room]...)
		p = p[room:]
		b.overflow()
	}
}

// overflow emits the pending line, maxLine bytes of a longer one, and
// starts dropping the rest. The kept part is scrubbed whole, and its last
// guard bytes are not emitted: a secret that begins there and goes on
// past the cut is not in the kept part whole, so only its beginning
// would be, unscrubbed.
func (b *logBuffer) overflow() {
	out := b.scrub.String(string(b.pending))
	guard := b.scrub.Longest() + 256 // 256: past the shortest credential shape redact knows
	if guard >= len(out) {
		out = ""
	} else {
		out = out[:len(out)-guard]
	}
	b.emit(out)
	b.pending = b.pending[:0]
	b.skipping, b.dropped = true, 0
}

// emit writes scrubbed text to the file and the tail. Cutting the tail
// cuts only scrubbed text, which holds no secret to reveal a piece of.
func (b *logBuffer) emit(scrubbed string) {
	if b.file != nil && b.fileErr == nil {
		// A full disk must not kill the server through a broken pipe: keep
		// the tail and report the log error at Stop.
		_, b.fileErr = io.WriteString(b.file, scrubbed)
	}
	b.tail = append(b.tail, scrubbed...)
	if len(b.tail) > 2*b.max {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.max:]...)
	}
}

// flush writes the unterminated last line to the log file, when the
// server is gone.
func (b *logBuffer) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) > 0 {
		b.emit(b.scrub.String(string(b.pending)))
	}
	b.pending = nil
}

// Tail returns the last n lines of the log, secrets scrubbed: the
// scrubbed lines so far and the unterminated line, scrubbed whole before
// anything is cut.
func (b *logBuffer) Tail(n int) string {
	b.mu.Lock()
	s := string(b.tail) + b.scrub.String(string(b.pending))
	b.mu.Unlock()
	if len(s) > b.max {
		s = s[len(s)-b.max:]
	}
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (b *logBuffer) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fileErr
}

// urlRe finds an address a server announces when it starts listening:
// uvicorn's "Uvicorn running on http://0.0.0.0:8000", or a bare
// "127.0.0.1:41234" as `perfgate sim --addr 127.0.0.1:0` prints.
var urlRe = regexp.MustCompile(`(?:^|[\s(])(https?://)?(\[[0-9a-fA-F:.]+\]|(?:[0-9]{1,3}\.){3}[0-9]{1,3}|localhost):([0-9]{2,5})(?:/|\s|\)|$)`)

// announcedURL returns the base URL in line, or "". A wildcard host
// (0.0.0.0, [::]) is replaced by the loopback address, which is where a
// server on this machine is reached.
func announcedURL(line string) string {
	m := urlRe.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	scheme, host, port := m[1], m[2], m[3]
	if scheme == "" {
		scheme = "http://"
	}
	switch host {
	case "0.0.0.0":
		host = "127.0.0.1"
	case "[::]":
		host = "[::1]"
	}
	return scheme + host + ":" + port
}
