package cli

import (
	"reflect"

	"github.com/spf13/pflag"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/perfgate/perfgate/gate/sim"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// simBuffer is a goroutine-safe writer the test can poll.
type simBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *simBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *simBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// simStart runs `perfgate sim args...` and returns the URL it printed and
// a channel with its exit code.
func simStart(t *testing.T, ctx context.Context, args ...string) (string, <-chan ExitCode, *simBuffer) {
	t.Helper()
	return simStartEnv(t, ctx, nil, args...)
}

// simStartEnv is simStart with the command's environment.
func simStartEnv(t *testing.T, ctx context.Context, environ []string, args ...string) (string, <-chan ExitCode, *simBuffer) {
	t.Helper()
	out, errw := &simBuffer{}, &simBuffer{}
	done := make(chan ExitCode, 1)
	go func() {
		done <- Main(ctx, append([]string{"sim", "--addr", "127.0.0.1:0"}, args...), Streams{In: strings.NewReader(""), Out: out, Err: errw, Environ: environ})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "\n") {
		select {
		case code := <-done:
			t.Fatalf("sim exited early with %v: %s", code, errw.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("sim printed no address")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return strings.TrimSpace(strings.SplitN(out.String(), "\n", 2)[0]), done, errw
}

func TestSimServesAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, _ := simStart(t, ctx, "--model", "m1", "--decode-scale", "1.2", "--seed", "9", "--fail-rate", "0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the base URL", url)
	}
	resp, err := http.Get(url + "/sim/config")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"model":"m1"`, `"decode_scale":1.2`, `"seed":9`, `"prefill_scale":1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("config %s lacks %s", body, want)
		}
	}
	resp, err = http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model":"m1","prompt":"hi","max_tokens":2}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("completion: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	select {
	case code := <-done:
		if code != ExitPass {
			t.Errorf("exit code %v after cancel", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not stop after cancel")
	}
}

func TestSimExitAfter(t *testing.T) {
	t.Parallel()
	url, done, errw := simStart(t, context.Background(), "--exit-after", "1")
	for i := 0; i < 2; i++ {
		resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"hi","max_tokens":2}`))
		if i == 0 && (err != nil || resp.StatusCode != 200) {
			t.Fatalf("first request: %v %v", resp, err)
		}
		if err == nil {
			resp.Body.Close()
		}
	}
	select {
	case code := <-done:
		if code != ExitRunFailed || !strings.Contains(errw.String(), "simulated crash") {
			t.Errorf("exit code %v, stderr %q", code, errw.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not exit after the limit")
	}
}

func TestSimBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"sim", "--preset", "nope"},
		{"sim", "--jitter-cv", "-1"},
		{"sim", "--fail-rate", "2"},
		{"sim", "--addr", "256.0.0.1:99999"},
	} {
		var errw bytes.Buffer
		code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errw})
		if code != ExitInvalid || errw.Len() == 0 {
			t.Errorf("%v: exit %v, stderr %q", args, code, errw.String())
		}
	}
}

// TestSimHasAFlagForEveryKnob keeps the flags in step with sim.Config: a
// knob added to the struct without a flag fails here.
func TestSimHasAFlagForEveryKnob(t *testing.T) {
	t.Parallel()
	var count func(reflect.Type) int
	count = func(typ reflect.Type) int {
		n := 0
		for i := range typ.NumField() {
			if f := typ.Field(i); f.Type.Kind() == reflect.Struct {
				n += count(f.Type)
			} else {
				n++
			}
		}
		return n
	}
	knobs := count(reflect.TypeOf(sim.Config{}))
	flags := 0
	newSimCmd(&Streams{}).Flags().VisitAll(func(f *pflag.Flag) {
		// --session-cv sets two knobs at once; it has no field of its own.
		// --profile-dir is a server option (where traces go), not a knob.
		if f.Name != "addr" && f.Name != "preset" && f.Name != "session-cv" && f.Name != "profile-dir" {
			flags++
		}
	})
	if flags != knobs {
		t.Errorf("%d knob flags for %d Config fields", flags, knobs)
	}
}

// TestSimSessionFlags: --session-cv sets both phases, a per-phase flag
// overrides it, --session-seed fixes the draw, and the drawn factors are
// logged and served by /sim/stats and /metrics.
func TestSimSessionFlags(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, errw := simStart(t, ctx, "--session-cv-decode", "0.02", "--session-cv", "0.05", "--session-seed", "9")
	want := sim.DrawSession(0.05, 0.02, 9)
	body := simGet(t, url+"/sim/config")
	for _, s := range []string{`"session_cv_prefill":0.05`, `"session_cv_decode":0.02`, `"session_seed":9`} {
		if !strings.Contains(body, s) {
			t.Errorf("config %s lacks %s", body, s)
		}
	}
	var st sim.Stats
	if err := json.Unmarshal([]byte(simGet(t, url+"/sim/stats")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Session != want || want.Prefill == 1 || want.Decode == 1 {
		t.Errorf("stats session %+v, want %+v", st.Session, want)
	}
	if m := simGet(t, url+"/metrics"); !strings.Contains(m, fmt.Sprintf(`sim_session_factor{phase="decode"} %v`, want.Decode)) {
		t.Errorf("/metrics lacks the decode factor %v", want.Decode)
	}
	if line := fmt.Sprintf("session offsets prefill x%.4f decode x%.4f (--session-seed 9", want.Prefill, want.Decode); !strings.Contains(errw.String(), line) {
		t.Errorf("stderr %q lacks %q", errw.String(), line)
	}
	cancel()
	<-done
}

func simGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
