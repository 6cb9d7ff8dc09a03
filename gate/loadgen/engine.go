package loadgen

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/workload"
)

// readyProfile is the profile the readiness wait follows: the configured
// one, or, under auto, none (the default protocol: /health, falling back
// to /v1/models on a 404), since the engine is only asked once it answers.
func (r *Runner) readyProfile() (engine.Profile, bool) {
	if r.cfg.Engine == "" || r.cfg.Engine == engine.Auto {
		return engine.Profile{}, false
	}
	p, err := engine.Get(r.cfg.Engine)
	return p, err == nil
}

// resolveEngine returns the run's engine profile: the configured one, or
// the one the server names (engine.Detect), asked once per Runner. The
// first resolution is logged to Config.Progress with its evidence, so a
// reader of the CI log sees which quirks perfgate assumed.
func (r *Runner) resolveEngine(ctx context.Context, hc *http.Client) (engine.Profile, error) {
	r.engineMu.Lock()
	defer r.engineMu.Unlock()
	if r.engine.Name != "" {
		return r.engine, nil
	}
	how := "configured"
	if p, ok := r.readyProfile(); ok {
		r.engine = p
	} else if r.cfg.Engine != "" && r.cfg.Engine != engine.Auto {
		_, err := engine.Get(r.cfg.Engine)
		return engine.Profile{}, fmt.Errorf("server.engine: %w", err)
	} else {
		d := engine.Detect(ctx, hc, r.base, r.cfg.APIKey)
		r.engine, r.engineVersion = engine.Must(d.Name), d.Version
		how = "detected: " + d.Evidence
	}
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "engine: %s (%s, %s)\n", r.engine.Name, r.engine.Title, how)
	}
	return r.engine, nil
}

// engineWarnings are the trial warnings of a workload that asks for what
// the engine profile says the engine does not do: honour ignore_eos, or
// take token-id prompts (the engine then refuses every such request).
// exactEOS says every successful request of the trial came back with
// exactly its max_tokens. For the generic profile, which only assumes that
// ignore_eos may not be honoured, what was observed then decides and there
// is nothing to warn about; an engine known to lack the option (ollama,
// TGI) is still named, since a later trial may stop at EOS.
func engineWarnings(m *workload.Manifest, p engine.Profile, exactEOS bool) []string {
	var out []string
	if m.Sampling.IgnoreEOS && !p.IgnoreEOS && !(exactEOS && p.Name == engine.OpenAI) {
		out = append(out, fmt.Sprintf("the workload sets ignore_eos but %s (engine %s) does not honour it: requests may stop at EOS before max_tokens", p.Title, p.Name))
	}
	if !p.TokenPrompts && m.API != workload.Chat && len(m.Requests) > 0 && m.Requests[0].PromptIDs != nil {
		out = append(out, fmt.Sprintf("the workload sends token-id prompts but %s (engine %s) takes text prompts only: it may refuse every request; set dataset.prompt_format: text (docs/workloads.md)", p.Title, p.Name))
	}
	return out
}

// profile is the resolved engine profile (RunTrials resolves it before any
// request is encoded).
func (r *Runner) profile() engine.Profile {
	r.engineMu.Lock()
	defer r.engineMu.Unlock()
	return r.engine
}

// resetPrefixCache asks the server to drop its prefix cache, through the
// engine profile's endpoint. An engine without one is an error that says
// so and names the engines that have one.
func (r *Runner) resetPrefixCache(ctx context.Context, hc *http.Client, p engine.Profile) error {
	ep := p.CacheReset
	if ep == nil {
		return fmt.Errorf("--reset-prefix-cache: %s (engine %s) has no prefix-cache reset endpoint; "+
			"drop the option (or reset_prefix_cache), or set server.engine (--engine) if the server is vLLM or SGLang", p.Title, p.Name)
	}
	req, err := http.NewRequestWithContext(ctx, ep.Method, r.base+ep.Path, nil)
	if err != nil {
		return err
	}
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s%s: %w", ep.Method, redact.URL(r.base), ep.Path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("%s %s%s: HTTP %d", ep.Method, redact.URL(r.base), ep.Path, resp.StatusCode)
		if p.CacheResetNote != "" {
			msg += " (" + p.CacheResetNote + ")"
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// eosSeen counts, over a trial, the successful ignore_eos requests and
// those that produced exactly max_tokens, so engineWarnings follows what
// the server did. Safe for concurrent use.
type eosSeen struct {
	mu      sync.Mutex
	of, hit int
}

func (e *eosSeen) see(rec *metrics.Request) {
	if !rec.Success || !rec.IgnoreEOS || rec.MaxTokens <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.of++
	if rec.OutputTokens == rec.MaxTokens {
		e.hit++
	}
}

// exact: at least one request was observed and all had their length.
func (e *eosSeen) exact() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.of > 0 && e.hit == e.of
}
