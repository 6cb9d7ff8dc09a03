package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// simConfig launches the real `perfgate sim` on a free loopback port; the
// launcher learns the port from the URL sim prints first.
func simConfig(t *testing.T, flags ...string) Config {
	return Config{
		Command:   append([]string{perfgateBin, "sim", "--addr", "127.0.0.1:0", "--preset", "fast"}, flags...),
		BaseEnv:   []string{"PATH=" + os.Getenv("PATH")},
		StopGrace: 5 * time.Second,
	}
}

func TestSimSlowStartAndCleanStop(t *testing.T) {
	t.Parallel()
	p := start(t, simConfig(t, "--slow-start", "600ms", "--model", "sim-model"))
	began := time.Now()
	info, err := p.Ready(context.Background(), nil, 30*time.Second)
	if err != nil {
		t.Fatalf("Ready: %v\n%s", err, p.Tail(20))
	}
	if waited := time.Since(began); waited < 600*time.Millisecond {
		t.Errorf("ready after %s, during the simulated slow start", waited)
	}
	if info.Version != "0.11.0+perfgate-sim" || len(info.Models) != 1 || info.Models[0].ID != "sim-model" || info.Models[0].MaxModelLen != 4096 {
		t.Errorf("info = %+v", info)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if !strings.Contains(p.Tail(5), "perfgate sim: stopped") {
		t.Errorf("sim did not shut down cleanly on SIGTERM; log:\n%s", p.Tail(5))
	}
	if groupAlive(p.Pid()) {
		t.Errorf("process group %d alive after Stop", p.Pid())
	}
}

// TestSimCrashMidRun: the simulator exits (code 3) when request 3 arrives;
// the watch reports an *ExitError with the log tail, as a run would see it.
func TestSimCrashMidRun(t *testing.T) {
	t.Parallel()
	p := start(t, simConfig(t, "--exit-after", "2"))
	ctx := context.Background()
	info, err := p.Ready(ctx, nil, 30*time.Second)
	if err != nil {
		t.Fatalf("Ready: %v\n%s", err, p.Tail(20))
	}
	watch := p.Watch(ctx, nil, 50*time.Millisecond, 3)
	for i := 0; i < 3; i++ {
		complete(info.URL, info.Models[0].ID) // the third one is cut by the crash
	}
	select {
	case err := <-watch:
		var ee *ExitError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(ee.Tail, "simulated crash") {
			t.Fatalf("watch: %v (%T)\n%s", err, err, p.Tail(10))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the crash was not reported")
	}
}

// complete sends one small streamed completion and drains it.
func complete(url, model string) error {
	body := fmt.Sprintf(`{"model":%q,"prompt":[1,2,3,4],"max_tokens":4,"stream":true,"ignore_eos":true}`, model)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
