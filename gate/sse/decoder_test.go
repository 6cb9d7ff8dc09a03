package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// decodeAll returns the data of every event, "[DONE]" included, and Err.
func decodeAll(r io.Reader) ([]string, error) {
	d := NewDecoder(r)
	var out []string
	for d.Next() {
		out = append(out, string(d.Event().Data))
	}
	return out, d.Err()
}

func TestDecoder(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"openai stream", "data: {\"a\":1}\n\ndata: {\"usage\":null}\n\ndata: [DONE]\n\n", []string{`{"a":1}`, `{"usage":null}`, "[DONE]"}},
		{"CRLF line ends", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"lone CR line ends", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"comments are skipped", ": keep-alive\n\ndata: a\n: inside\n\n", []string{"a"}},
		{"final event without blank line", "data: a\n\ndata: tail", []string{"a", "tail"}},
		{"final event with one newline", "data: a\n", []string{"a"}},
		{"multi-line data joined by LF", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"no space after colon", "data:x\n\n", []string{"x"}},
		{"only first space stripped", "data:  x\n\n", []string{" x"}},
		{"field without colon is a name", "data\n\n", []string{""}},
		{"events without data are skipped", "event: ping\n\nid: 3\n\ndata: a\n\n", []string{"a"}},
		{"unknown fields ignored", "retry: 10\nfoo: bar\ndata: a\n\n", []string{"a"}},
		{"very long data line", "data: " + long + "\n\n", []string{long}},
		{"error event", "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\ndata: [DONE]\n\n", []string{`{"error":{"message":"boom","code":500}}`, "[DONE]"}},
		{"several blank lines", "\n\n\ndata: a\n\n\n\n", []string{"a"}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Whole, one byte at a time, and in odd pieces must agree: the
			// network splits events (and CRLFs) anywhere.
			readers := map[string]io.Reader{
				"whole":   strings.NewReader(tc.in),
				"onebyte": iotest.OneByteReader(strings.NewReader(tc.in)),
				"half":    iotest.HalfReader(strings.NewReader(tc.in)),
			}
			for rname, r := range readers {
				got, err := decodeAll(r)
				if err != nil {
					t.Fatalf("%s: Err = %v", rname, err)
				}
				if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
					t.Errorf("%s: got %q, want %q", rname, got, tc.want)
				}
			}
		})
	}
}

func TestDecoderFields(t *testing.T) {
	d := NewDecoder(strings.NewReader("event: update\nid: 7\ndata: x\n\ndata: [DONE]\n\n"))
	if !d.Next() {
		t.Fatal("no event")
	}
	if ev := d.Event(); ev.Type != "update" || ev.ID != "7" || string(ev.Data) != "x" || ev.Done {
		t.Errorf("event = %+v", ev)
	}
	if !d.Next() || !d.Event().Done {
		t.Errorf("want [DONE] event, got %+v", d.Event())
	}
	if d.Next() {
		t.Error("Next after the end")
	}
}

func TestDecoderTooLarge(t *testing.T) {
	d := NewDecoder(strings.NewReader("data: " + strings.Repeat("y", 5000) + "\n\n"))
	d.SetMaxEventSize(1000)
	if d.Next() {
		t.Fatal("oversized event decoded")
	}
	if !errors.Is(d.Err(), ErrEventTooLarge) {
		t.Errorf("Err = %v, want ErrEventTooLarge", d.Err())
	}
}

// TestDecoderLimitIsHard is issue 14's defect 16: the limit was checked
// only before a read, so an event arriving in one large read (a 20 MiB
// event against the 16 MiB default), the last line of an event, or the
// last line of the stream slipped past it. An event of exactly the limit
// passes; one byte more fails, however the bytes arrive.
func TestDecoderLimitIsHard(t *testing.T) {
	const limit = 1000
	line := func(n int) string { return "data: " + strings.Repeat("x", n-len("data: ")) }
	readers := map[string]func(string) io.Reader{
		"one read":   func(s string) io.Reader { return strings.NewReader(s) },
		"byte reads": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half reads": func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	cases := []struct {
		name   string
		stream string
		ok     bool
	}{
		{"at the limit", line(limit) + "\n\n", true},
		{"one byte over", line(limit+1) + "\n\n", false},
		{"two lines over together", line(600) + "\n" + line(401) + "\n\n", false},
		{"two lines at the limit", line(600) + "\n" + line(400) + "\n\n", true},
		{"last line of the stream", line(limit + 1), false},
		{"comments count", ":" + strings.Repeat("c", 600) + "\n" + line(401) + "\n\n", false},
		{"each event on its own", line(limit) + "\n\n" + line(limit) + "\n\n", true},
	}
	for rname, reader := range readers {
		for _, c := range cases {
			d := NewDecoder(reader(c.stream))
			d.SetMaxEventSize(limit)
			n := 0
			for d.Next() {
				n++
			}
			tooLarge := errors.Is(d.Err(), ErrEventTooLarge)
			if c.ok && (tooLarge || n == 0) || !c.ok && !tooLarge {
				t.Errorf("%s, %s: %d events, err %v", c.name, rname, n, d.Err())
			}
		}
	}
}

// TestDecoderDefaultLimit: with the default limit, a 20 MiB event is an
// error even when it arrives in one read.
func TestDecoderDefaultLimit(t *testing.T) {
	d := NewDecoder(strings.NewReader("data: " + strings.Repeat("y", 20<<20) + "\n\n"))
	if d.Next() || !errors.Is(d.Err(), ErrEventTooLarge) {
		t.Fatalf("20 MiB event: Err = %v", d.Err())
	}
}

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := decodeAll(r)
	if !errors.Is(err, boom) {
		t.Errorf("Err = %v, want %v", err, boom)
	}
	if len(got) != 1 || got[0] != "a" {
		t.Errorf("events before the error = %q, want [a]", got)
	}
}

// countingReader counts Read calls so tests can check the decoder reads
// only when it has no complete event (what per-read timestamps rely on).
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) { c.reads++; return c.r.Read(p) }

func TestDecoderReadsOnlyWhenNeeded(t *testing.T) {
	cr := &countingReader{r: strings.NewReader("data: a\n\ndata: b\n\ndata: c\n\n")}
	d := NewDecoder(cr)
	for i := 0; i < 3; i++ {
		if !d.Next() {
			t.Fatalf("event %d missing", i)
		}
		if cr.reads != 1 {
			t.Fatalf("after event %d: %d reads, want 1 (all events arrived in one read)", i, cr.reads)
		}
	}
}

// reference is a deliberately simple decoder used as the fuzz oracle.
func reference(in []byte) []string {
	s := strings.ReplaceAll(string(in), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var out []string
	var data []string
	has := false
	flush := func() {
		if has {
			out = append(out, strings.Join(data, "\n"))
		}
		data, has = nil, false
	}
	lines := strings.Split(s, "\n")
	if strings.HasSuffix(s, "\n") {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		if l == "" {
			flush()
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value, found := strings.Cut(l, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		if name == "data" {
			data = append(data, value)
			has = true
		}
	}
	flush()
	return out
}

func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n",
		"data: a\r\n\r\ndata: b",
		": c\n\nevent: e\nid: 1\ndata: x\ndata: y\n\n",
		"data:\r\rdata: z\r",
		"\r\n\r\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := reference(in)
		for _, r := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in))} {
			got, err := decodeAll(r)
			if err != nil {
				t.Fatalf("Err = %v", err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d events %q, want %d %q", len(got), got, len(want), want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("event %d = %q, want %q", i, got[i], want[i])
				}
			}
		}
	})
}

// SetMaxEventSize changes the limit on one event's size in bytes (the
// tests' small limits; perfgate keeps the default).
func (d *Decoder) SetMaxEventSize(n int) { d.max = n }
