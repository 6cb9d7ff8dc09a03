package sim

import (
	"net/http"
	"strings"
)

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type completionChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
	StopReason   *string `json:"stop_reason"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      chatOutcome `json:"message"`
	Logprobs     any         `json:"logprobs"`
	FinishReason *string     `json:"finish_reason"`
	StopReason   *string     `json:"stop_reason"`
}

type chatOutcome struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []any  `json:"tool_calls"`
}

type wholeResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   usage  `json:"usage"`
}

// writeWhole waits for every choice to finish and answers one JSON body.
// Faults map onto it as: stream error -> 500, drop -> connection cut once
// enough tokens exist, stall -> a late answer.
func (s *Server) writeWhole(w http.ResponseWriter, r *http.Request, j *job) {
	texts := make([]strings.Builder, len(j.seqs))
	finish := make([]chunk, len(j.seqs))
	var pending []chunk
	done, generated, stalled := 0, 0, false
	for done < len(j.seqs) {
		var err error
		pending, err = s.await(r, j, pending)
		if err == errShutDown {
			s.writeError(w, http.StatusServiceUnavailable, "engine is shut down")
			return
		}
		if err != nil {
			return
		}
		for _, c := range pending {
			texts[c.index].WriteString(c.text)
			generated += c.tokens
			if c.finish != "" {
				finish[c.index] = c
				done++
			}
		}
		if due(j.faults.dropAt, generated) {
			s.met.fault(faultDrop)
			s.eng.abort(j.seqs...)
			panic(http.ErrAbortHandler)
		}
		if due(j.faults.streamErrorAt, generated) {
			s.met.fault(faultStreamError)
			s.writeError(w, http.StatusInternalServerError, "simulated engine error after %d tokens", generated)
			return
		}
		if !stalled && due(j.faults.stallAt, generated) {
			stalled = true
			s.met.fault(faultStall)
			if !s.sleep(r, j.faults.stallFor) {
				return
			}
		}
	}
	resp := wholeResponse{ID: j.id, Object: "text_completion", Created: j.created, Model: j.model}
	var comp []completionChoice
	var chat []chatChoice
	for i, sq := range j.seqs {
		resp.Usage.PromptTokens += len(sq.prompt)
		resp.Usage.CompletionTokens += finish[i].total
		fr, sr := &finish[i].finish, nullable(finish[i].stopReason)
		if j.chat {
			chat = append(chat, chatChoice{Index: i, Message: chatOutcome{Role: "assistant", Content: texts[i].String(), ToolCalls: []any{}},
				FinishReason: fr, StopReason: sr})
		} else {
			comp = append(comp, completionChoice{Index: i, Text: texts[i].String(), FinishReason: fr, StopReason: sr})
		}
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	resp.Choices = comp
	if j.chat {
		resp.Object, resp.Choices = "chat.completion", chat
	}
	writeJSON(w, http.StatusOK, resp)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
