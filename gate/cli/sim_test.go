package cli

import (
	"reflect"

	"github.com/spf13/pflag"

	"bytes"
	"context"
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
	out, errw := &simBuffer{}, &simBuffer{}
	done := make(chan ExitCode, 1)
	go func() {
		done <- Main(ctx, append([]string{"sim", "--addr", "127.0.0.1:0"}, args...), Streams{In: strings.NewReader(""), Out: out, Err: errw})
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
		if f.Name != "addr" && f.Name != "preset" {
			flags++
		}
	})
	if flags != knobs {
		t.Errorf("%d knob flags for %d Config fields", flags, knobs)
	}
}
