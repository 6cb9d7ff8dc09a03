package ready

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// DefaultRefusedHintAfter is how long a server perfgate did not start may
// refuse every connection before the wait says what to check: a few
// seconds are a server finishing its start, ten are more likely a wrong
// --url or a server that is not running. It is a hint, not an end: a CI
// job that starts the server in the background and points perfgate at it
// sees refusals for as long as the model loads (vLLM opens its port only
// then), so the wait goes on until its timeout.
const DefaultRefusedHintAfter = 10 * time.Second

// refusals tracks an unbroken run of refused connections during one wait
// and writes its hint once.
type refusals struct {
	o      Options
	shown  string
	since  time.Time // first refusal of the current run; zero: none
	hinted bool
}

// saw records one failed attempt at now.
func (r *refusals) saw(err error, now time.Time) {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		r.since = time.Time{}
		return
	}
	if r.since.IsZero() {
		r.since = now
	}
	if r.hinted || r.o.Launched || r.o.Hints == nil || now.Sub(r.since) < r.o.RefusedHintAfter {
		return
	}
	r.hinted = true
	fmt.Fprintf(r.o.Hints, "perfgate: nothing accepts connections at %s (refused for %s), and perfgate did not start this server: "+
		"check --url (server.url: host and port) and that the server is running; to have perfgate start it, give --server-cmd (server.command); "+
		"a server still loading its model opens its port only when ready, so the wait goes on up to %s\n",
		r.shown, now.Sub(r.since).Round(time.Second), r.o.Timeout)
}
