package server

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// PortInUseError says the address a launched server is to serve on
// (server.url) already accepts connections before perfgate started the
// server: another process holds the port. Launching anyway would measure
// that process (it answers the readiness probes) while the launched server
// fails to bind and exits, reported as a death during the run.
type PortInUseError struct {
	URL  string // the configured URL, as given
	Addr string // host:port probed
	// Holder names the process listening there ("pid 1234 (python3)"),
	// when /proc says; empty otherwise.
	Holder string
}

func (e *PortInUseError) Error() string {
	_, port, _ := net.SplitHostPort(e.Addr)
	by, find := "another process", fmt.Sprintf(" (`ss -ltnp 'sport = :%s'` names it)", port)
	if e.Holder != "" {
		by, find = e.Holder, ""
	}
	return fmt.Sprintf("port %s (%s, server.url %s) is already in use by %s, "+
		"which perfgate would have measured instead of the server it starts; stop it%s or give the server a free port and set server.url to match",
		port, e.Addr, e.URL, by, find)
}

// portDialTimeout bounds one look: a local port answers or refuses at
// once; a filtered one is not what the check is for.
const portDialTimeout = time.Second

// portGrace is how long a held port may take to free before the launch
// fails: a server perfgate just stopped (the previous arm of perfgate ab,
// calibrate's previous restart, a container behind `docker run`) can
// hold it for a moment while it exits. A neighbour holds it for longer.
const portGrace = 5 * time.Second

// portPoll is the pause between looks while the port is held.
const portPoll = 250 * time.Millisecond

// checkPortFree returns a *PortInUseError when something still accepts
// connections at raw's host and port after grace. Only addresses of this
// machine are checked (a loopback or unspecified IP, "localhost"); an
// empty raw (the server announces its address), a host name (a lookup of
// its own) or a dial that neither connects nor is refused checks nothing.
func checkPortFree(ctx context.Context, raw string, grace time.Duration) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	switch ip := net.ParseIP(host); {
	case strings.EqualFold(host, "localhost"):
		host = "127.0.0.1"
	case ip == nil:
		return nil
	case ip.IsUnspecified():
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	case !ip.IsLoopback():
		return nil
	}
	addr := net.JoinHostPort(host, port)
	d := net.Dialer{Timeout: portDialTimeout}
	end := time.Now().Add(grace)
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			// Refused: the port is free. Anything else (a timeout): the
			// launch's own readiness wait says why it cannot be reached.
			return nil
		}
		c.Close()
		if time.Now().After(end) {
			n, _ := strconv.Atoi(port)
			return &PortInUseError{URL: raw, Addr: addr, Holder: portHolder(n)}
		}
		select {
		case <-ctx.Done():
			return nil // interrupted: the launch reports it
		case <-time.After(portPoll):
		}
	}
}
