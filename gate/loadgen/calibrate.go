package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// calibrate returns m with its text prompts (prompt_format: text) sized
// for the server's tokenizer, and records the fit in res. The fit comes
// from the server's /tokenize endpoint where it has one (vLLM, SGLang),
// else from usage.prompt_tokens of two one-token requests (ollama and
// other OpenAI-compatible servers); the probes' prompts are their own, so
// no measured prompt is cached by them. The Runner keeps the fit per cell
// and model, so the extra looks of a gate send the same prompts as its
// first trials. Manifests of other prompt formats are returned as they
// are.
func (r *Runner) calibrate(ctx context.Context, m *workload.Manifest, res *result.Result, c *client, model string) (*workload.Manifest, error) {
	probes := m.CalibrationProbes()
	if probes == nil {
		return m, nil
	}
	key := m.Hash + "\x00" + model
	r.mu.Lock()
	cal, ok := r.calibrations[key]
	r.mu.Unlock()
	if !ok {
		var err error
		if cal, err = r.fit(ctx, m, c, model, probes); err != nil {
			return nil, fmt.Errorf("workload %s: %w", m.Cell, err)
		}
		r.mu.Lock()
		if r.calibrations == nil {
			r.calibrations = map[string]result.PromptCalibration{}
		}
		r.calibrations[key] = cal
		r.mu.Unlock()
	}
	out, err := m.Calibrate(cal)
	if err != nil {
		return nil, err
	}
	res.Workload.Calibration = out.Calibration
	return out, nil
}

// fit measures the probes' token counts and fits the calibration.
func (r *Runner) fit(ctx context.Context, m *workload.Manifest, c *client, model string, probes []workload.Request) (result.PromptCalibration, error) {
	var counts [2]int
	if p := r.profile(); p.Tokenize != "" && r.tokenizeAll(ctx, m, c, model, probes, p, &counts) {
		return workload.FitCalibration("tokenize", counts)
	}
	bodies, err := encodeBodies(m, probes, model, "", r.profile(), !r.cfg.NoContinuousUsage)
	if err != nil {
		return result.PromptCalibration{}, err
	}
	for i := range probes {
		rctx, cancel := context.WithTimeout(ctx, m.Timeout)
		x := &exchange{rec: metrics.Request{MaxTokens: probes[i].MaxTokens}}
		c.call(rctx, time.Now(), r.base+endpoint(m), fmt.Sprintf("perfgate-%s-calibrate-%d", r.nonce, i), bodies[i], x)
		cancel()
		if ctx.Err() != nil {
			return result.PromptCalibration{}, fmt.Errorf("prompt calibration: %w", ErrInterrupted)
		}
		if !x.rec.Success {
			return result.PromptCalibration{}, fmt.Errorf("prompt calibration: the probe of %d words failed at %s%s: %s %q",
				workload.ProbeWords[i], r.cfg.URL, endpoint(m), x.rec.ErrorType, x.rec.ErrorBody)
		}
		if x.rec.InputTokens <= 0 {
			return result.PromptCalibration{}, fmt.Errorf("prompt calibration: the server at %s has no /tokenize and reported no usage.prompt_tokens; text prompts cannot be sized", r.cfg.URL)
		}
		counts[i] = x.rec.InputTokens
	}
	return workload.FitCalibration("usage", counts)
}

// tokenizeAll counts the probes' tokens with the engine profile's
// tokenizer endpoint: vLLM's and SGLang's shape {"model", "prompt"} or
// {"model", "messages"}, llama.cpp's {"content"}, answered with "count"
// or "tokens". It reports false when the server has no such endpoint or
// answers something else, and the caller falls back to usage.
func (r *Runner) tokenizeAll(ctx context.Context, m *workload.Manifest, c *client, model string, probes []workload.Request, prof engine.Profile, counts *[2]int) bool {
	for i, p := range probes {
		body := map[string]any{"model": model}
		switch {
		case p.Messages != nil && prof.TokenizeContent:
			return false // its /tokenize counts no chat template
		case p.Messages != nil:
			body["messages"] = p.Messages
		case prof.TokenizeContent:
			body = map[string]any{"content": p.Prompt, "add_special": true}
		default:
			body["prompt"] = p.Prompt
		}
		n, ok := r.tokenize(ctx, c, prof.Tokenize, body)
		if !ok {
			return false
		}
		counts[i] = n
	}
	return true
}

func (r *Runner) tokenize(ctx context.Context, c *client, path string, body map[string]any) (int, bool) {
	data, err := json.Marshal(body)
	if err != nil {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.base+path, bytes.NewReader(data))
	if err != nil {
		return 0, false
	}
	req.Header.Set("Content-Type", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return 0, false
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&out); err != nil {
		return 0, false
	}
	switch {
	case out.Count != nil && *out.Count > 0:
		return *out.Count, true
	case len(out.Tokens) > 0:
		return len(out.Tokens), true
	}
	return 0, false
}

// textOnlyHint is the remedy a run that failed every request adds when it
// sent token ids to an engine that takes text prompts only, the likely
// cause of the failure (ollama answers each with a 400); "" otherwise.
func textOnlyHint(m *workload.Manifest, p engine.Profile) string {
	if p.Name == "" || p.TokenPrompts || m.API == workload.Chat || len(m.Requests) == 0 || m.Requests[0].PromptIDs == nil {
		return ""
	}
	return fmt.Sprintf("; %s takes text prompts only: set dataset.prompt_format: text (docs/workloads.md)", p.Title)
}
