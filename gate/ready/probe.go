package ready

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// prober sends the probes of one wait.
type prober struct {
	o     Options
	base  string // probed
	shown string // redacted, for messages
}

// attempt runs one pass of the protocol (see the package comment).
func (p prober) attempt(ctx context.Context) (Info, error) {
	healthy := false
	if !p.o.NoHealth {
		hp := p.o.HealthPath
		status, _, err := p.get(ctx, hp)
		if err != nil {
			return Info{}, err
		}
		switch status {
		case http.StatusOK:
			healthy = true
		case http.StatusNotFound:
			// No health endpoint: /v1/models decides.
		case http.StatusUnauthorized, http.StatusForbidden:
			return Info{}, p.auth(hp, status)
		default:
			return Info{}, fmt.Errorf("GET %s: HTTP %d", hp, status)
		}
	}
	status, body, err := p.get(ctx, "/v1/models")
	if err != nil {
		return Info{}, err
	}
	switch status {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return Info{}, p.auth("/v1/models", status)
	case http.StatusNotFound:
		if healthy {
			return Info{}, &NotOpenAIError{URL: p.shown}
		}
		return Info{}, errors.New((&NotOpenAIError{URL: p.shown}).Error())
	default:
		return Info{}, fmt.Errorf("GET /v1/models: HTTP %d: %s", status, p.clip(body))
	}
	models, err := parseModels(body)
	if err != nil {
		if errors.Is(err, errNoModels) && p.o.NoModelsHint != "" {
			return Info{}, fmt.Errorf("GET /v1/models: %w (%s)", err, p.o.NoModelsHint)
		}
		return Info{}, fmt.Errorf("GET /v1/models: %w", err)
	}
	info := Info{URL: p.base, Models: models, Health: healthy}
	if healthy && p.o.HealthPath != "/health" {
		info.HealthPath = p.o.HealthPath
	}
	if status, body, err := p.get(ctx, "/version"); err == nil && status == http.StatusOK {
		info.Version = parseVersion(body)
	}
	return info, nil
}

// errNoModels is a /v1/models list without entries: the server is up but
// serves no model yet.
var errNoModels = errors.New("no models listed")

// parseModels reads GET /v1/models ({"data": [{"id": ..., "max_model_len":
// ...}]}). An empty list, or an entry without an id, is not ready yet.
func parseModels(body []byte) ([]Model, error) {
	var list struct {
		Data []Model `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	if len(list.Data) == 0 {
		return nil, errNoModels
	}
	for i, m := range list.Data {
		if m.ID == "" {
			return nil, fmt.Errorf("model %d has no id", i+1)
		}
	}
	return list.Data, nil
}

// parseVersion reads GET /version ({"version": "0.11.0"}); anything else
// is no version.
func parseVersion(body []byte) string {
	var v struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	return v.Version
}

func (p prober) auth(path string, status int) error {
	return &AuthError{URL: p.shown, Path: path, Status: status, KeySent: p.o.APIKey != ""}
}

// clip shortens a server's answer for an error message, after scrubbing
// the API key and every other known secret from it (before clipping, so no
// prefix of a secret survives the cut).
func (p prober) clip(body []byte) string {
	s := p.o.Scrubber.With(p.o.APIKey).String(string(body))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}

// get fetches path with the probe timeout and returns status and body.
func (p prober) get(ctx context.Context, path string) (int, []byte, error) {
	return get(ctx, p.o.Client, p.o.APIKey, p.base+path, path)
}

func get(ctx context.Context, client *http.Client, apiKey, u, path string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the repeated method and (unredacted) URL
		}
		return 0, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, bodyLimit))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("GET %s: %w", path, err)
	}
	return resp.StatusCode, body, nil
}

// Alive probes info's liveness endpoint once (see Info.LivenessPath): nil
// when it answers 200. A run's health watch calls it.
func Alive(ctx context.Context, client *http.Client, apiKey string, info Info) error {
	if client == nil {
		client = http.DefaultClient
	}
	path := info.LivenessPath()
	status, _, err := get(ctx, client, apiKey, Base(info.URL)+path, path)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", path, status)
	}
	return nil
}
