package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	info, err := ready.Wait(ctx, ready.Options{
		URL: r.base, Client: hc, APIKey: r.cfg.APIKey, Scrubber: r.cfg.Scrubber.With(secrets...),
		Timeout: r.cfg.ReadyTimeout, Interval: 250 * time.Millisecond, Hints: r.cfg.Progress,
	})
	if errors.Is(err, ready.ErrInterrupted) {
		return srv, fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	if err != nil {
		return srv, err
	}
	srv.Models = info.IDs()
	srv.Version = info.Version
	srv.Model = m.Model
	if srv.Model == "" {
		srv.Model = info.Models[0].ID
	}
	found := false
	for _, d := range info.Models {
		if d.ID == srv.Model {
			found, srv.MaxModelLen = true, d.MaxModelLen
		}
	}
	if !found {
		return srv, fmt.Errorf("server at %s does not serve model %q (it serves %s)", srv.URL, srv.Model, strings.Join(srv.Models, ", "))
	}
	return srv, nil
}

// resetPrefixCache asks the server to drop its prefix cache.
func (r *Runner) resetPrefixCache(ctx context.Context, hc *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.base+"/reset_prefix_cache", nil)
	if err != nil {
		return err
	}
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s/reset_prefix_cache: %w", redact.URL(r.base), unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s/reset_prefix_cache: HTTP %d (vLLM serves it only with VLLM_SERVER_DEV_MODE=1)", redact.URL(r.base), resp.StatusCode)
	}
	return nil
}
