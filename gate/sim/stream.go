package sim

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// writeStream frames the request's output as vLLM does: token chunks (chat:
// a role chunk first), finish_reason on each choice's last token chunk, a
// usage chunk with "choices": [] when asked, then "data: [DONE]". All chunks
// that are ready when the handler wakes go out in one write and one flush:
// they stay separate SSE events, the write is just cheaper.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, j *job) {
	h := w.Header()
	switch j.persona {
	case EngineOllama:
		h.Set("Content-Type", "text/event-stream") // set by ollama's writers, no charset
	case EngineSGLang:
		h.Set("Content-Type", "text/event-stream; charset=utf-8") // Starlette's StreamingResponse
	default:
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	var (
		buf      = make([]byte, 0, 1024)
		pending  []chunk
		totals   = make([]int, len(j.seqs)) // completion tokens per choice
		written  int                        // token chunks' tokens sent, all choices
		started  = make([]bool, len(j.seqs))
		done     int
		stalled  bool
		events   int64
		flushOut = func() bool {
			if len(buf) == 0 {
				return true
			}
			_, err := w.Write(buf)
			buf = buf[:0]
			if err == nil {
				err = rc.Flush()
			}
			s.met.count(func(m *metricsState) { m.events += events })
			events = 0
			return err == nil
		}
	)
	for done < len(j.seqs) {
		var err error
		pending, err = s.await(r, j, pending)
		if err == errShutDown {
			buf = s.appendErrorEvent(buf, http.StatusServiceUnavailable, "engine is shut down")
			buf = append(buf, "data: [DONE]\n\n"...)
			flushOut()
			return
		}
		if err != nil {
			return
		}
		for _, c := range pending {
			if due(j.faults.streamErrorAt, written) {
				s.met.fault(faultStreamError)
				buf = s.appendErrorEvent(buf, http.StatusInternalServerError, "simulated engine error after "+strconv.Itoa(written)+" tokens")
				buf = append(buf, "data: [DONE]\n\n"...)
				flushOut()
				return
			}
			if due(j.faults.dropAt, written) {
				flushOut()
				s.met.fault(faultDrop)
				s.eng.abort(j.seqs...)
				panic(http.ErrAbortHandler) // net/http closes the connection mid-stream
			}
			if !stalled && due(j.faults.stallAt, written) {
				stalled = true
				if !flushOut() {
					return
				}
				s.met.fault(faultStall)
				if !s.sleep(r, j.faults.stallFor) {
					return
				}
			}
			first := !started[c.index]
			started[c.index] = true
			totals[c.index] = c.total
			if j.persona == EngineOllama {
				// ollama: text chunks, then a finish chunk of its own
				// (completions: empty text; chat: empty delta).
				buf = j.appendOllamaChunk(buf, c.text, "", first)
				if c.finish != "" {
					buf = j.appendOllamaChunk(buf, "", c.finish, false)
					events++
				}
			} else {
				if j.chat && first {
					buf = j.appendChunk(buf, chunk{}, c.index, true, 0)
				}
				buf = j.appendChunk(buf, c, c.index, false, len(j.seqs[c.index].prompt))
			}
			events++
			written += c.tokens
			if c.finish != "" {
				done++
			}
		}
		if !flushOut() {
			return
		}
	}
	if j.usage {
		prompt, completion := 0, 0
		for i, sq := range j.seqs {
			prompt += len(sq.prompt)
			completion += totals[i]
		}
		if j.persona == EngineOllama {
			buf = j.appendOllamaUsage(buf, prompt, completion)
		} else {
			buf = j.appendHead(buf)
			buf = append(buf, `[]`...)
			buf = appendUsage(buf, prompt, completion)
			buf = j.appendTail(buf)
		}
	}
	buf = append(buf, "data: [DONE]\n\n"...)
	flushOut()
}

// errShutDown is await's answer when the engine shut down while the
// handler waited: the handler answers 503 in its response's framing.
var errShutDown = errors.New("engine is shut down")

// await blocks until the job has output and takes it into pending, reusing
// its storage. It fails with the request context's error when the client
// leaves (nothing more to write) and with errShutDown when the engine shuts
// down. Both response framings, streamed and whole, wait on it.
func (s *Server) await(r *http.Request, j *job, pending []chunk) ([]chunk, error) {
	select {
	case <-j.out.notify:
		return j.out.take(pending), nil
	case <-r.Context().Done():
		return pending, r.Context().Err()
	case <-s.eng.quit:
		return pending, errShutDown
	}
}

// sleep waits d unless the client leaves or the server closes.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.eng.quit:
	}
	return false
}

// appendHead writes `data: {"id":...,"model":...,"choices":` for a chunk.
func (j *job) appendHead(buf []byte) []byte {
	buf = append(buf, `data: {"id":`...)
	buf = appendString(buf, j.id)
	if j.chat {
		buf = append(buf, `,"object":"chat.completion.chunk","created":`...)
	} else {
		buf = append(buf, `,"object":"text_completion","created":`...)
	}
	buf = strconv.AppendInt(buf, j.created, 10)
	buf = append(buf, `,"model":`...)
	buf = appendString(buf, j.model)
	return append(buf, `,"choices":`...)
}

// appendTail adds the optional send-time stamp and ends the event.
func (j *job) appendTail(buf []byte) []byte {
	if j.stamp {
		buf = append(buf, `,"sim_sent_ns":`...)
		buf = strconv.AppendInt(buf, time.Now().UnixNano(), 10)
	}
	return append(buf, "}\n\n"...)
}

// appendChunk writes one token chunk (or, with role set, chat's opening
// role chunk) for choice index.
func (j *job) appendChunk(buf []byte, c chunk, index int, role bool, promptTokens int) []byte {
	buf = j.appendHead(buf)
	buf = append(buf, `[{"index":`...)
	buf = strconv.AppendInt(buf, int64(index), 10)
	switch {
	case role:
		buf = append(buf, `,"delta":{"role":"assistant","content":""}`...)
	case j.chat:
		buf = append(buf, `,"delta":{"content":`...)
		buf = appendString(buf, c.text)
		buf = append(buf, '}')
	default:
		buf = append(buf, `,"text":`...)
		buf = appendString(buf, c.text)
	}
	buf = append(buf, `,"logprobs":null,"finish_reason":`...)
	buf = appendNullable(buf, c.finish)
	if j.persona == EngineSGLang {
		buf = append(buf, `,"matched_stop":`...) // SGLang's name for the stop that matched
	} else {
		buf = append(buf, `,"stop_reason":`...)
	}
	buf = appendNullable(buf, c.stopReason)
	buf = append(buf, "}]"...)
	switch {
	case j.continuous && !role:
		buf = appendUsage(buf, promptTokens, c.total)
	case j.persona == EngineSGLang:
		// Pydantic's model_dump_json keeps the unset usage as null.
		buf = append(buf, `,"usage":null`...)
	}
	return j.appendTail(buf)
}

func appendUsage(buf []byte, prompt, completion int) []byte {
	buf = append(buf, `,"usage":{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(prompt), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(prompt+completion), 10)
	buf = append(buf, `,"completion_tokens":`...)
	buf = strconv.AppendInt(buf, int64(completion), 10)
	return append(buf, '}')
}

func appendNullable(buf []byte, s string) []byte {
	if s == "" {
		return append(buf, "null"...)
	}
	return appendString(buf, s)
}

// appendString writes s as a JSON string. The generated vocabulary needs no
// escaping, so the common case is a plain copy.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := json.Marshal(s)
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

func (s *Server) appendErrorEvent(buf []byte, status int, msg string) []byte {
	b, _ := json.Marshal(s.errorBody(status, msg))
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	return append(buf, "\n\n"...)
}
