package server

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/gate/redact"
)

// logBuffer receives the server's stdout and stderr: it copies every byte
// to an optional log file, keeps the last max bytes for error reports, and
// watches complete lines for the address the server announces.
type logBuffer struct {
	mu      sync.Mutex
	file    io.Writer // nil: no log file
	fileErr error
	tail    []byte
	max     int
	partial []byte // the current, unterminated line (for address discovery)
	addr    chan string
	found   bool
	scrub   *redact.Scrubber
}

func newLogBuffer(file io.Writer, max int, scrub *redact.Scrubber) *logBuffer {
	return &logBuffer{file: file, max: max, addr: make(chan string, 1), scrub: scrub}
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
	if b.file != nil && b.fileErr == nil {
		// A full disk must not kill the server through a broken pipe: keep
		// the tail and report the log error at Stop.
		_, b.fileErr = b.file.Write(p)
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.max {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.max:]...)
	}
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

// Tail returns the last n lines of the log with known secrets replaced.
// Scrubbing happens here, on the way out, and not in Write: the log file
// is the operator's own copy (server.log), and a secret split between two
// writes is whole again in the tail.
func (b *logBuffer) Tail(n int) string {
	b.mu.Lock()
	t := b.tail
	if len(t) > b.max {
		t = t[len(t)-b.max:]
	}
	s := string(t)
	b.mu.Unlock()
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return b.scrub.String(strings.Join(lines, "\n"))
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
