package loadgen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/ready"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// Prepare waits until the server is ready, by the one readiness protocol
// of package ready (the one a launched server is held to as well), then
// resolves the model to request. Errors name the URL and the last thing
// that went wrong, and come within Config.ReadyTimeout; answers that
// waiting cannot change (401/403, a healthy server without /v1/models)
// end the wait at once.
func (r *Runner) Prepare(ctx context.Context, m *workload.Manifest) (result.Server, error) {
	srv := result.Server{URL: redact.URL(r.cfg.URL), GPUs: m.GPUs}
	hc, secrets, err := r.probeClient(r.clientFor(m).http, m)
	if err != nil {
		return srv, err
	}
	timeout := r.cfg.ReadyTimeout
	if !r.cfg.ReadyDeadline.IsZero() {
		timeout = max(time.Until(r.cfg.ReadyDeadline), min(MinReadyWait, timeout))
	}
	opts := ready.Options{
		URL: r.base, Client: hc, APIKey: r.cfg.APIKey, Scrubber: r.cfg.Scrubber.With(secrets...),
		Timeout: timeout, Interval: 250 * time.Millisecond, Hints: r.cfg.Progress,
	}
	if p, ok := r.readyProfile(); ok {
		opts.HealthPath, opts.NoHealth, opts.NoModelsHint = p.HealthPath, p.HealthPath == "", p.NoModelsHint
	}
	info, err := ready.Wait(ctx, opts)
	if errors.Is(err, ready.ErrInterrupted) {
		return srv, fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	if err != nil {
		return srv, err
	}
	p, err := r.resolveEngine(ctx, hc)
	if err != nil {
		return srv, err
	}
	srv.Engine = string(p.Name)
	srv.Models = info.IDs()
	srv.Version = info.Version
	if srv.Version == "" {
		srv.Version = r.engineVersion // SGLang, ollama, TGI name it elsewhere
	}
	srv.Model = m.Model
	if srv.Model == "" {
		srv.Model = info.Models[0].ID
	}
	found := false
	for _, d := range info.Models {
		if d.ID == srv.Model {
			found, srv.MaxModelLen = true, d.MaxModelLen
			r.vocab.Store(int64(d.Meta.NVocab))
		}
	}
	if !found && p.DefaultTag != "" && !strings.Contains(srv.Model, ":") {
		// The engine lists every model with its tag and serves a bare
		// name as its default tag (engine.Profile.DefaultTag).
		for _, d := range info.Models {
			if d.ID == srv.Model+":"+p.DefaultTag {
				found, srv.Model, srv.MaxModelLen = true, d.ID, d.MaxModelLen
				r.vocab.Store(int64(d.Meta.NVocab))
			}
		}
	}
	if !found {
		return srv, fmt.Errorf("server at %s does not serve model %q (it serves %s)", srv.URL, srv.Model, strings.Join(srv.Models, ", "))
	}
	return srv, nil
}
