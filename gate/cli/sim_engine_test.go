package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSimEngineFlag: `perfgate sim --engine ollama` serves ollama's
// surface (/api/version, no /health), says so on stderr, and a knob flag
// beside it wins over the engine's default chunking; an unknown engine is
// a usage error naming the flag.
func TestSimEngineFlag(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, errw := simStart(t, ctx, "--engine", "ollama", "--stream-interval", "2")
	if v := simGet(t, url+"/api/version"); !strings.Contains(v, `"version":"0.17.4+perfgate-sim"`) {
		t.Errorf("/api/version: %s", v)
	}
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/health: %d, ollama has none", resp.StatusCode)
	}
	if c := simGet(t, url+"/sim/config"); !strings.Contains(c, `"engine":"ollama"`) || !strings.Contains(c, `"stream_interval":2`) {
		t.Errorf("/sim/config: %s", c)
	}
	if !strings.Contains(errw.String(), " as ollama") {
		t.Errorf("stderr: %q", errw.String())
	}
	cancel()
	if code := <-done; code != ExitPass {
		t.Errorf("exit %v", code)
	}

	var stderr bytes.Buffer
	code := Main(context.Background(), []string{"sim", "--engine", "tgi"}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: &stderr})
	if code != ExitInvalid || !strings.Contains(stderr.String(), "--engine") {
		t.Errorf("--engine tgi: exit %v, stderr %q", code, stderr.String())
	}
}
