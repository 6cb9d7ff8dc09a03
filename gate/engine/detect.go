package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Detection is what Detect learned: the profile, the engine's version when
// it says, and the evidence (which answer decided), for the log.
type Detection struct {
	Name     Name
	Version  string
	Evidence string
}

// probeTimeout bounds one detection probe; probeLimit what is read of it.
const (
	probeTimeout = 5 * time.Second
	probeLimit   = 1 << 20
)

// probe is one question Detect asks: GET path, and what a 200 answer must
// hold to name the engine.
type probe struct {
	name Name
	path string
	// match reads a 200 answer's JSON body; ok says it is this engine.
	match func(body []byte) (version string, ok bool)
}

// probes are asked in order; the first that matches decides. The engines'
// own endpoints come first, vLLM's /version last: it is the least
// specific (a bare {"version": ...}), so a server that has one of the
// others is never taken for vLLM.
var probes = []probe{
	{SGLang, "/get_server_info", func(b []byte) (string, bool) {
		var v struct {
			Version   string `json:"version"`
			ModelPath string `json:"model_path"`
			TPSize    *int   `json:"tp_size"`
		}
		ok := json.Unmarshal(b, &v) == nil && (v.ModelPath != "" || v.TPSize != nil)
		return v.Version, ok
	}},
	{Ollama, "/api/version", func(b []byte) (string, bool) {
		var v struct {
			Version string `json:"version"`
		}
		return v.Version, json.Unmarshal(b, &v) == nil && v.Version != ""
	}},
	{LlamaCpp, "/props", func(b []byte) (string, bool) {
		var v struct {
			Settings   json.RawMessage `json:"default_generation_settings"`
			TotalSlots *int            `json:"total_slots"`
			Build      string          `json:"build_info"`
		}
		return v.Build, json.Unmarshal(b, &v) == nil && (len(v.Settings) > 0 || v.TotalSlots != nil)
	}},
	{TGI, "/info", func(b []byte) (string, bool) {
		var v struct {
			ModelID string `json:"model_id"`
			Router  string `json:"router"`
			Version string `json:"version"`
			MaxConc *int   `json:"max_concurrent_requests"`
		}
		ok := json.Unmarshal(b, &v) == nil && v.ModelID != "" && (strings.Contains(v.Router, "text-generation") || v.MaxConc != nil)
		return v.Version, ok
	}},
	{VLLM, "/version", func(b []byte) (string, bool) {
		var v struct {
			Version string `json:"version"`
		}
		return v.Version, json.Unmarshal(b, &v) == nil && v.Version != ""
	}},
}

// serverHeaders name an engine by its Server response header, for a server
// whose endpoints did not tell (llama.cpp sets "Server: llama.cpp").
var serverHeaders = []struct {
	substr string
	name   Name
}{
	{"llama.cpp", LlamaCpp},
	{"ollama", Ollama},
	{"text-generation", TGI},
	{"sglang", SGLang},
	{"vllm", VLLM},
}

// Detect asks the server at base (no trailing slash) what it is, through
// client (nil: http.DefaultClient), sending apiKey as a bearer token when
// set. It never fails: a server that tells nothing, or that cannot be
// reached, is OpenAI, the generic profile, with the reason as evidence.
// The probes are GETs without side effects, each bounded by five seconds.
func Detect(ctx context.Context, client *http.Client, base, apiKey string) Detection {
	if client == nil {
		client = http.DefaultClient
	}
	base = strings.TrimRight(base, "/")
	var header string
	for _, p := range probes {
		status, body, server, err := get(ctx, client, base+p.path, apiKey)
		if header == "" {
			header = server
		}
		if err != nil {
			if ctx.Err() != nil {
				return Detection{Name: OpenAI, Evidence: "detection interrupted"}
			}
			continue
		}
		if status != http.StatusOK {
			continue
		}
		if v, ok := p.match(body); ok {
			return Detection{Name: p.name, Version: v, Evidence: fmt.Sprintf("GET %s answered like %s", p.path, Must(p.name).Title)}
		}
	}
	if n, ok := FromHeader(header); ok {
		return Detection{Name: n, Evidence: fmt.Sprintf("its Server header is %q", header)}
	}
	return Detection{Name: OpenAI, Evidence: "the server did not say which engine it is"}
}

// FromHeader names the engine a Server response header belongs to.
func FromHeader(server string) (Name, bool) {
	s := strings.ToLower(server)
	if s == "" {
		return "", false
	}
	for _, h := range serverHeaders {
		if strings.Contains(s, h.substr) {
			return h.name, true
		}
	}
	return "", false
}

// get fetches u and returns the status, the body (bounded) and the Server
// header.
func get(ctx context.Context, client *http.Client, u, apiKey string) (int, []byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, "", err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, probeLimit))
	return resp.StatusCode, body, resp.Header.Get("Server"), err
}
