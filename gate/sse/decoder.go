// Package sse decodes a text/event-stream (Server-Sent Events) response on
// the client side, the way `vllm bench serve` reads OpenAI streams: events are
// separated by blank lines, lines starting with ':' are comments, "data:"
// lines are joined with "\n", and a final event without its blank line is
// still delivered when the stream ends.
//
// The decoder follows the bufio.Scanner idiom (Next, Event, Err) and never
// parses JSON: callers decide what an event means. It reads from the
// underlying reader only when its buffer holds no complete event, so a caller
// that timestamps each Read of the underlying reader knows exactly when the
// bytes of the event returned by Next arrived (gate/loadgen relies on this).
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEventSize bounds one event (all its lines together, without
// their terminators). A longer event is an error rather than unbounded
// memory growth, and the limit is hard: an event of the limit plus one byte
// fails however the bytes arrive (one read, many reads, one line or many).
const DefaultMaxEventSize = 16 << 20

// initialBuffer is small on purpose: a streaming token event is a few hundred
// bytes, and thousands of streams may be open at once. The buffer doubles for
// long lines.
const initialBuffer = 1024

// ErrEventTooLarge is returned by Err when an event exceeds the size limit.
var ErrEventTooLarge = errors.New("sse: event exceeds the size limit")

// Event is one decoded event. Data aliases the decoder's buffer and is only
// valid until the next call to Next.
type Event struct {
	// Type is the "event:" field; empty means the default "message".
	Type string
	// ID is the "id:" field, if any.
	ID string
	// Data holds the "data:" lines joined by "\n", without the "data:"
	// prefix and the one optional space after it.
	Data []byte
	// Done reports the OpenAI end marker: Data is exactly "[DONE]".
	Done bool
}

// Decoder reads events from a stream.
type Decoder struct {
	r       io.Reader
	buf     []byte // buf[start:end] holds unconsumed bytes
	start   int
	end     int
	max     int
	eof     bool
	err     error
	ev      Event
	data    []byte // joined data of the current event
	hasData bool
	// size is the bytes of the current event's lines so far (terminators
	// not counted): the limit is on what the event makes the decoder hold.
	size int
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: r, buf: make([]byte, initialBuffer), max: DefaultMaxEventSize}
}

// Event returns the event found by the last successful Next.
func (d *Decoder) Event() Event { return d.ev }

// Err returns the first error other than io.EOF met by Next.
func (d *Decoder) Err() error { return d.err }

// Next advances to the next event that carries data. Events with no data
// lines (for example a lone "event:" or only comments) are skipped, as the
// SSE specification requires. It returns false at the end of the stream or
// on an error (see Err).
func (d *Decoder) Next() bool {
	d.ev = Event{}
	d.data = d.data[:0]
	d.hasData = false
	d.size = 0
	for {
		line, ok := d.line()
		if !ok {
			if d.err != nil {
				return false
			}
			// End of stream: a pending event without its blank line still
			// counts (vLLM's client accepts it too).
			return d.finish()
		}
		if len(line) == 0 {
			d.size = 0
			if d.finish() {
				return true
			}
			continue
		}
		if d.size += len(line); d.size > d.max {
			d.tooLarge()
			return false
		}
		d.field(line)
	}
}

// finish completes the pending event, reporting whether it carried data.
func (d *Decoder) finish() bool {
	if !d.hasData {
		d.ev = Event{}
		return false
	}
	d.ev.Data = d.data
	d.ev.Done = bytes.Equal(d.data, doneMarker)
	d.hasData = false
	return true
}

var doneMarker = []byte("[DONE]")

// field applies one non-empty line to the pending event.
func (d *Decoder) field(line []byte) {
	if line[0] == ':' {
		return // comment (keep-alive)
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if d.hasData {
			d.data = append(d.data, '\n')
		}
		d.data = append(d.data, value...)
		d.hasData = true
	case "event":
		d.ev.Type = string(value)
	case "id":
		d.ev.ID = string(value)
	}
	// "retry" and unknown fields are ignored, as the specification says.
}

// line returns the next line without its terminator (LF, CRLF or a lone
// CR). The slice aliases the buffer. ok is false at the end of input or on
// an error; a final line without terminator is returned before that.
func (d *Decoder) line() (line []byte, ok bool) {
	scanned := 0 // bytes of buf[start:end] already searched
	for {
		avail := d.buf[d.start:d.end]
		if i := indexEOL(avail[scanned:]); i >= 0 {
			i += scanned
			if avail[i] == '\r' && i+1 == len(avail) && !d.eof {
				// A CR at the end of the buffer may be the first half of a
				// CRLF: read more before deciding.
				scanned = i
			} else {
				n := i + 1
				if avail[i] == '\r' && i+1 < len(avail) && avail[i+1] == '\n' {
					n++
				}
				d.start += n
				return avail[:i], true
			}
		} else {
			scanned = len(avail)
		}
		if d.eof {
			if len(avail) == 0 {
				return nil, false
			}
			d.start = d.end
			return avail, true
		}
		// avail is the start of one line without its end yet: stop
		// buffering as soon as it cannot fit in the event.
		if d.size+len(avail) > d.max {
			d.tooLarge()
			return nil, false
		}
		if err := d.fill(); err != nil {
			d.err = err
			return nil, false
		}
	}
}

func (d *Decoder) tooLarge() {
	d.err = fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, d.max)
	d.ev, d.data, d.hasData = Event{}, d.data[:0], false
}

// indexEOL finds the first CR or LF. Two IndexByte calls (vectorised)
// beat one IndexAny scan several times over on event-sized lines.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	limit := b
	if i >= 0 {
		limit = b[:i]
	}
	if j := bytes.IndexByte(limit, '\r'); j >= 0 {
		return j
	}
	return i
}

// fill reads more input, compacting or growing the buffer first.
func (d *Decoder) fill() error {
	if d.start > 0 {
		n := copy(d.buf, d.buf[d.start:d.end])
		d.start, d.end = 0, n
	}
	if d.end == len(d.buf) {
		nb := make([]byte, 2*len(d.buf))
		copy(nb, d.buf[:d.end])
		d.buf = nb
	}
	for empty := 0; ; empty++ {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err == io.EOF {
			d.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if empty > 100 {
			return io.ErrNoProgress
		}
	}
}
