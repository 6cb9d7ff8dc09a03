package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// Prepare waits until the server is ready (GET /health answers 200, then
// GET /v1/models lists a model), resolves the model to request and reads
// /version. Errors name the URL and the last thing that went wrong, and
// come within Config.ReadyTimeout.
//
// Answers that waiting cannot change end the wait at once instead of after
// the (minutes long) timeout: 401 or 403 (the API key is missing or
// rejected) and 404 on /v1/models from a server whose /health answered
// 200 (it is up but not OpenAI-compatible). A 404 while /health also
// answers 404 may be a proxy in front of a server still starting, so that
// one is waited out.
func (r *Runner) Prepare(ctx context.Context, m *workload.Manifest) (result.Server, error) {
	srv := result.Server{URL: result.RedactURL(r.cfg.URL), GPUs: m.GPUs}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ReadyTimeout)
	defer cancel()
	hc := r.clientFor(m).http
	var last error
	poll := func(path string, ok func(status int, body []byte) error) error {
		for {
			status, body, err := r.get(ctx, hc, path)
			if err == nil {
				err = ok(status, body)
			}
			if err == nil {
				return nil
			}
			var f *finalError
			if errors.As(err, &f) {
				return fmt.Errorf("server at %s: %w", srv.URL, err)
			}
			last = err
			select {
			case <-ctx.Done():
				if parent.Err() != nil {
					return fmt.Errorf("%w while waiting for %s to become ready (last: %v)", ErrInterrupted, srv.URL, last)
				}
				return fmt.Errorf("server at %s not ready after %v: %w", srv.URL, r.cfg.ReadyTimeout, last)
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	healthy := false
	err := poll("/health", func(status int, _ []byte) error {
		switch status {
		case http.StatusOK:
			healthy = true
			return nil
		case http.StatusNotFound: // no health endpoint
			return nil
		case http.StatusUnauthorized, http.StatusForbidden:
			return r.authError("/health", status)
		}
		return fmt.Errorf("GET /health: HTTP %d", status)
	})
	if err != nil {
		return srv, err
	}
	var models modelList
	err = poll("/v1/models", func(status int, body []byte) error {
		switch status {
		case http.StatusOK:
		case http.StatusUnauthorized, http.StatusForbidden:
			return r.authError("/v1/models", status)
		case http.StatusNotFound:
			err := fmt.Errorf("GET /v1/models: HTTP 404: the server does not look like an OpenAI-compatible server (check the URL and that it serves /v1/models)")
			if healthy {
				return &finalError{err}
			}
			return err
		default:
			return fmt.Errorf("GET /v1/models: HTTP %d: %s", status, clip([]byte(r.redact(string(body)))))
		}
		var err error
		if models, err = decodeModels(body); err != nil {
			return fmt.Errorf("GET /v1/models: %w", err)
		}
		return nil
	})
	if err != nil {
		return srv, err
	}
	for _, d := range models.Data {
		srv.Models = append(srv.Models, d.ID)
	}
	srv.Model = m.Model
	if srv.Model == "" {
		srv.Model = models.Data[0].ID
	}
	found := false
	for _, d := range models.Data {
		if d.ID == srv.Model {
			found, srv.MaxModelLen = true, d.MaxModelLen
		}
	}
	if !found {
		return srv, fmt.Errorf("server at %s does not serve model %q (it serves %s)", srv.URL, srv.Model, strings.Join(srv.Models, ", "))
	}
	if status, body, err := r.get(ctx, hc, "/version"); err == nil && status == http.StatusOK {
		srv.Version = decodeVersion(body)
	}
	return srv, nil
}

// finalError marks a readiness answer that waiting cannot change.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// authError explains a 401 or 403 from path. It tells a missing key from a
// rejected one and names where the key comes from; it never contains the
// key, nor the response body (a server may echo the credential it got).
func (r *Runner) authError(path string, status int) error {
	if r.cfg.APIKey == "" {
		return &finalError{fmt.Errorf("GET %s: HTTP %d: the server requires an API key and none was sent; set PERFGATE_API_KEY or OPENAI_API_KEY", path, status)}
	}
	return &finalError{fmt.Errorf("GET %s: HTTP %d: the server rejected the API key; check PERFGATE_API_KEY (or OPENAI_API_KEY, used when PERFGATE_API_KEY is unset)", path, status)}
}

// redact removes the API key from text that came from the server (before
// clipping, so that no prefix of the key survives at the cut).
func (r *Runner) redact(s string) string {
	if r.cfg.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, r.cfg.APIKey, "[redacted]")
}

type modelList struct {
	Data []struct {
		ID          string `json:"id"`
		MaxModelLen int    `json:"max_model_len"`
	} `json:"data"`
}

// get fetches a utility endpoint (at most 1 MiB of body).
func (r *Runner) get(ctx context.Context, hc *http.Client, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+path, nil)
	if err != nil {
		return 0, nil, err
	}
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("GET %s: %w", path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
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
		return fmt.Errorf("POST %s/reset_prefix_cache: %w", result.RedactURL(r.base), unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s/reset_prefix_cache: HTTP %d (vLLM serves it only with VLLM_SERVER_DEV_MODE=1)", result.RedactURL(r.base), resp.StatusCode)
	}
	return nil
}
