package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/sse"
)

// stampReader records when the last read of the response body returned
// bytes. The SSE decoder reads only when it holds no complete event, so
// after Next the stamp is the arrival time of that event's last byte.
type stampReader struct {
	r      io.Reader
	anchor time.Time
	last   time.Duration
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.last = time.Since(s.anchor)
	}
	return n, err
}

// exchange is one request on the wire and what came back.
type exchange struct {
	rec     metrics.Request
	status  int
	finish  string
	sawDone bool
	// usageSeen: the stream carried some usage object.
	usageSeen bool
	// texts holds the JSON-quoted output strings of every token message,
	// back to back, and textEnds where each message's ends: kept only when
	// the server has a tokenizer endpoint, to count them after the trial.
	texts    []byte
	textEnds []uint32
	// attempts counts the connections the request was tried on (see
	// client.resend); more than one means it was sent again.
	attempts int
}

// keepText appends a token message's output strings to x.texts.
func (x *exchange) keepText(ch *chunk, data []byte) {
	for _, t := range ch.text[:ch.texts] {
		x.texts = append(x.texts, data[t[0]:t[1]]...)
	}
	x.textEnds = append(x.textEnds, uint32(len(x.texts)))
}

// call sends one request and streams its response into x.rec. It never
// returns an error: what the server did wrong is recorded as data
// (ErrorType, ErrorBody), as are timeouts and cancellations.
func (c *client) call(ctx context.Context, anchor time.Time, url string, reqID string, payload []byte, x *exchange) {
	rec := &x.rec
	// Error bodies and messages come from the server, and a server (or a
	// proxy) may echo the request's Authorization header: the key must
	// never reach a result file or report.
	defer func() {
		if rec.ErrorBody != "" {
			rec.ErrorBody = clipString(c.scrub.String(rec.ErrorBody), metrics.ErrorSampleBytes)
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		rec.ErrorType, rec.ErrorBody = "request_error", err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("x-request-id", reqID)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	for k, v := range c.headers {
		req.Header[k] = v
	}
	// A nil Idempotency-Key is not sent, but it lets net/http send the
	// request again on another connection when the kept-alive one it
	// picked turns out closed by the server before any byte of a response
	// came back (docs/run.md#connections). Without it a POST is retried
	// only when not one byte of it was written, and a server that closes
	// connections after each stream fails a share of the requests that
	// pick one. Every connection tried is counted: x.attempts > 1 marks a
	// request sent again. Sent stays the first attempt's time, so the
	// closed attempt counts in the request's latency.
	req.Header["Idempotency-Key"] = nil
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { x.attempts++ },
	}))
	rec.Sent = time.Since(anchor)
	resp, err := c.http.Do(req)
	if err != nil {
		rec.Done = time.Since(anchor)
		rec.ErrorType, rec.ErrorBody = classify(ctx, err, true), err.Error()
		return
	}
	defer resp.Body.Close()
	x.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, metrics.ErrorSampleBytes+scrubMargin))
		rec.Done = time.Since(anchor)
		rec.ErrorType, rec.ErrorBody = fmt.Sprintf("http_%d", resp.StatusCode), string(head)
		return
	}
	if ct := resp.Header.Get("Content-Type"); !isEventStream(ct) {
		// A 200 that is not a stream (an HTML error page from a proxy, a
		// JSON answer from a server that ignored "stream": true) would
		// otherwise read as a stream without events: "truncated".
		head, _ := io.ReadAll(io.LimitReader(resp.Body, metrics.ErrorSampleBytes))
		rec.Done = time.Since(anchor)
		rec.ErrorType = "not_event_stream"
		rec.ErrorBody = fmt.Sprintf("not an event stream: Content-Type %s: %s", ct, head)
		return
	}
	c.stream(ctx, anchor, resp.Body, x)
	rec.Done = time.Since(anchor)
	if x.sawDone {
		drain(resp.Body)
	}
}

// isEventStream reports whether a response's Content-Type allows an SSE
// body: text/event-stream with any parameters, or no Content-Type at all
// (some minimal servers send none; the decoder then decides).
func isEventStream(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

// drain reads what follows [DONE] (the chunked body's terminator) so the
// connection goes back to the pool: net/http closes a connection whose body
// was closed unread. A server that keeps the stream open after [DONE] gets
// a second before the body is closed anyway.
func drain(body io.ReadCloser) {
	t := time.AfterFunc(time.Second, func() { body.Close() })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
}

// stream reads the event stream. Token messages (non-empty choices) set
// the first and last token times and the gaps between them; how many
// tokens each carried is settled once the stream ended (resolveTokens),
// because which usage style the server follows is only known then.
func (c *client) stream(ctx context.Context, anchor time.Time, body io.Reader, x *exchange) {
	rec := &x.rec
	sr := &stampReader{r: body, anchor: anchor}
	dec := sse.NewDecoder(sr)
	var (
		prev time.Duration
		// per holds each token message's usage and whether it had text
		// (see entry), for resolveTokens.
		per       []uint32
		allUsage  = true // every token message with text carried usage
		usageSeen bool
	)
	if rec.MaxTokens > 0 {
		n := min(rec.MaxTokens, 4096)
		rec.Gaps = make([]float32, 0, n)
		per = make([]uint32, 0, n+1)
	}
	for dec.Next() {
		at := sr.last
		ev := dec.Event()
		if c.onEvent != nil {
			c.onEvent(anchor, at, ev.Data)
		}
		if ev.Done {
			x.sawDone = true
			break
		}
		ch, err := parseChunk(ev.Data)
		if err != nil {
			rec.ErrorType, rec.ErrorBody = "bad_chunk", clip(ev.Data)
			return
		}
		if ch.err {
			rec.ErrorType, rec.ErrorBody = "stream_error", clip(ev.Data)
			return
		}
		if ch.usage {
			usageSeen = true
			rec.InputTokens, rec.OutputTokens = ch.promptTokens, ch.completionTokens
		}
		if !ch.choices {
			continue
		}
		if ch.finish != "" {
			x.finish = ch.finish
		}
		if !ch.usage && ch.texts > 0 {
			allUsage = false
		}
		per = append(per, entry(ch.completionTokens, ch.usage, ch.texts > 0))
		if c.keepTexts {
			x.keepText(&ch, ev.Data)
		}
		if rec.Chunks == 0 {
			rec.FirstToken = at
		} else {
			rec.Gaps = append(rec.Gaps, float32(float64(at-prev)/float64(time.Millisecond)))
		}
		prev = at
		rec.LastToken = at
		rec.Chunks++
	}
	if err := dec.Err(); err != nil {
		rec.ErrorType, rec.ErrorBody = classify(ctx, err, false), err.Error()
		return
	}
	x.usageSeen = usageSeen
	resolveTokens(rec, per, allUsage, usageSeen)
	switch {
	case !x.sawDone && x.finish == "":
		rec.ErrorType = "truncated"
		rec.ErrorBody = "stream ended before [DONE] and before any finish_reason"
	case rec.Chunks == 0:
		rec.ErrorType = "empty_stream"
		rec.ErrorBody = "HTTP 200 but no token message"
	default:
		rec.Success = true
	}
	rec.Finish = x.finish
}

// scrubMargin is how much more than ErrorSampleBytes of an error body is
// kept until it is scrubbed: a secret that straddles the cut is then still
// whole, and replaced, instead of leaving its first bytes in the sample.
const scrubMargin = 256

// clip keeps what of an error body may reach the sample, before scrubbing.
func clip(b []byte) string {
	return clipString(string(b), metrics.ErrorSampleBytes+scrubMargin)
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// classify names a transport error. connecting is true before the
// response headers arrived.
func classify(ctx context.Context, err error, connecting bool) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return canceled
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return "connection_reset"
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "truncated"
	case errors.Is(err, sse.ErrEventTooLarge):
		return "bad_chunk"
	case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
		// The client's own descriptor limit, not the server's fault
		// (RunTrials checks the limit first; see fdlimit.go).
		return clientFDLimit
	}
	var op *net.OpError
	if connecting && errors.As(err, &op) && op.Op == "dial" {
		return "connect_error"
	}
	if connecting {
		return "connection_error"
	}
	return "read_error"
}

// clientFDLimit marks requests the client could not open a connection for
// because it ran out of file descriptors.
const clientFDLimit = "client_fd_limit"

// canceled marks requests cut off by an interrupt: not the server's fault,
// so they are not counted as failures.
const canceled = "canceled"
