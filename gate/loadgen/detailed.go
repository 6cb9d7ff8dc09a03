package loadgen

import (
	"encoding/json"

	"github.com/perfgate/perfgate/gate/workload"
)

// Detail is one line of the --save-detailed JSON-lines file: everything
// measured about one request. Times are ms from the trial's anchor.
type Detail struct {
	Trial        int       `json:"trial"`
	Index        int       `json:"index"`
	IntendedMs   float64   `json:"intended_ms"`
	SentMs       float64   `json:"sent_ms"`
	DoneMs       float64   `json:"done_ms"`
	Success      bool      `json:"success"`
	Status       int       `json:"status,omitempty"`
	TTFTMs       float64   `json:"ttft_ms,omitempty"`
	E2ELMs       float64   `json:"e2el_ms,omitempty"`
	InputTokens  int       `json:"input_tokens"`
	OutputTokens int       `json:"output_tokens"`
	MaxTokens    int       `json:"max_tokens"`
	Chunks       int       `json:"chunks"`
	ITLMs        []float32 `json:"itl_ms,omitempty"`
	ChunkTokens  []uint32  `json:"chunk_tokens,omitempty"`
	// TokenMethod says where ChunkTokens came from (docs/metrics.md).
	TokenMethod string  `json:"token_method,omitempty"`
	Finish      string  `json:"finish_reason,omitempty"`
	Error       string  `json:"error,omitempty"`
	ErrorBody   string  `json:"error_body,omitempty"`
	DispatchLag float64 `json:"dispatch_lag_ms"`
}

func msOf(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }

// writeDetail appends x's record to Config.Detailed, if set. Writes are
// serialised; the writer should be buffered.
func (r *Runner) writeDetail(trial int, rq *workload.Request, x *exchange) {
	if r.cfg.Detailed == nil {
		return
	}
	rec := &x.rec
	d := Detail{
		Trial: trial, Index: rq.Index, IntendedMs: msOf(rec.Intended), SentMs: msOf(rec.Sent), DoneMs: msOf(rec.Done),
		Success: rec.Success, Status: x.status, InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens,
		MaxTokens: rec.MaxTokens, Chunks: rec.Chunks, ITLMs: rec.Gaps, ChunkTokens: rec.GapTokens, Finish: x.finish,
		Error: rec.ErrorType, ErrorBody: rec.ErrorBody, DispatchLag: msOf(rec.DispatchLag),
		TokenMethod: rec.Tokens.String(),
	}
	if rec.Chunks > 0 {
		d.TTFTMs, d.E2ELMs = rec.TTFT(), rec.E2EL()
	}
	line, err := json.Marshal(&d)
	if err != nil {
		return // cannot happen: plain numbers and strings
	}
	line = append(line, '\n')
	r.detail.Lock()
	defer r.detail.Unlock()
	if _, err := r.cfg.Detailed.Write(line); err != nil && r.detailErr == nil {
		r.detailErr = err
	}
}
