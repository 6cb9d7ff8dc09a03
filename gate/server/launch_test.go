package server

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/redact"
)

// helperConfig launches the test binary as a fake server in mode.
func helperConfig(t *testing.T, mode string) Config {
	t.Helper()
	return Config{
		Command:   []string{os.Args[0], "-test.run=^$"},
		BaseEnv:   []string{"PATH=" + os.Getenv("PATH")},
		Env:       map[string]string{helperEnv: mode, "VLLM_API_KEY": "sk-test-secret"},
		Log:       filepath.Join(t.TempDir(), "server.log"),
		StopGrace: 2 * time.Second,
	}
}

func start(t *testing.T, cfg Config) *Process {
	t.Helper()
	p, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if groupAlive(p.Pid()) {
			t.Errorf("process group %d still alive after Stop", p.Pid())
		}
	})
	return p
}

func TestReadyAndStop(t *testing.T) {
	t.Parallel()
	cfg := helperConfig(t, "ok")
	p := start(t, cfg)
	ctx := context.Background()
	info, err := p.Ready(ctx, nil, 20*time.Second)
	if err != nil {
		t.Fatalf("Ready: %v\n%s", err, p.Tail(20))
	}
	if !strings.HasPrefix(info.URL, "http://127.0.0.1:") || info.Version != "0.0.0-test" ||
		len(info.Models) != 1 || info.Models[0].ID != "fake-model" || info.Models[0].MaxModelLen != 4096 {
		t.Errorf("info = %+v", info)
	}
	if p.Err() != nil {
		t.Errorf("Err() = %v while running", p.Err())
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	<-p.done
	var ee *ExitError
	if !errors.As(p.Err(), &ee) {
		t.Errorf("Err() after Stop = %v", p.Err())
	}
	if groupAlive(p.Pid()) {
		t.Errorf("group %d alive after Stop", p.Pid())
	}
	log, err := os.ReadFile(cfg.Log)
	if err != nil || !strings.Contains(string(log), "Uvicorn running on") {
		t.Errorf("log file: %q, %v", log, err)
	}
	if strings.Contains(p.Tail(10), "sk-test-secret") || !strings.Contains(p.Tail(10), redact.Placeholder) {
		t.Errorf("tail leaks the API key: %q", p.Tail(10))
	}
}

func TestSlowStart(t *testing.T) {
	t.Parallel()
	p := start(t, helperConfig(t, "slow=700ms"))
	began := time.Now()
	if _, err := p.Ready(context.Background(), nil, 20*time.Second); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	if waited := time.Since(began); waited < 700*time.Millisecond {
		t.Errorf("ready after %s, before /health turned 200", waited)
	}

	// Too slow for the timeout: a NotReadyError naming the last failure.
	p2 := start(t, helperConfig(t, "slow=1h"))
	_, err := p2.Ready(context.Background(), nil, 3*time.Second)
	var nr *NotReadyError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

func TestExitBeforeReady(t *testing.T) {
	t.Parallel()
	p := start(t, helperConfig(t, "exit"))
	_, err := p.Ready(context.Background(), nil, 20*time.Second)
	var ee *ExitError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(ee.Tail, "unknown model foo") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

func TestCrashMidRun(t *testing.T) {
	t.Parallel()
	p := start(t, helperConfig(t, "crash=800ms"))
	ctx := context.Background()
	if _, err := p.Ready(ctx, nil, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	watch := p.Watch(ctx, nil, 50*time.Millisecond, 3)
	select {
	case err := <-watch:
		var ee *ExitError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(ee.Tail, "illegal memory access") {
			t.Fatalf("watch err = %v (%T)", err, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the crash was not reported")
	}
	if _, open := <-watch; open {
		t.Error("watch channel not closed after its error")
	}
}

func TestStubbornServerIsKilled(t *testing.T) {
	t.Parallel()
	cfg := helperConfig(t, "stubborn")
	cfg.StopGrace = 300 * time.Millisecond
	p := start(t, cfg)
	if _, err := p.Ready(context.Background(), nil, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	p.Stop()
	if took := time.Since(began); took < 300*time.Millisecond {
		t.Errorf("stopped in %s: SIGTERM should have been ignored", took)
	}
	var ee *ExitError
	if !errors.As(p.Err(), &ee) || !strings.Contains(p.Err().Error(), "killed") {
		t.Errorf("Err() = %v, want killed", p.Err())
	}
}

// TestNoOrphans: the server's own child process dies with it, whether the
// server is stopped or crashed on its own.
func TestNoOrphans(t *testing.T) {
	t.Parallel()
	for _, crash := range []bool{false, true} {
		cfg := helperConfig(t, "spawn")
		p := start(t, cfg)
		if _, err := p.Ready(context.Background(), nil, 20*time.Second); err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`child (\d+)`).FindStringSubmatch(p.Tail(20))
		if m == nil {
			t.Fatalf("no child pid in %q", p.Tail(20))
		}
		child, _ := strconv.Atoi(m[1])
		if crash {
			syscall.Kill(p.Pid(), syscall.SIGKILL) // only the leader dies
			<-p.done
			if !alive(child) {
				t.Fatal("the child died with the leader: the test proves nothing")
			}
		}
		p.Stop()
		if alive(child) {
			t.Errorf("crash=%v: child %d outlived Stop", crash, child)
		}
		if groupAlive(p.Pid()) {
			t.Errorf("crash=%v: group %d alive", crash, p.Pid())
		}
	}
}

func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

func TestConfiguredURL(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := helperConfig(t, "silent")
	cfg.Env["PERFGATE_TEST_ADDR"] = addr
	cfg.URL = "http://" + addr + "/"
	p := start(t, cfg)
	info, err := p.Ready(context.Background(), nil, 20*time.Second)
	if err != nil || info.URL != "http://"+addr {
		t.Fatalf("info %+v err %v", info, err)
	}

	// Without a URL and without an announcement, readiness times out with
	// a message saying what is missing.
	p2 := start(t, helperConfig(t, "silent"))
	_, err = p2.Ready(context.Background(), nil, 300*time.Millisecond)
	var na *NoAddressError
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "printed no address") || !strings.Contains(err.Error(), "set server.url (--url)") {
		t.Fatalf("err = %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	if _, err := Start(Config{}); err == nil || !strings.Contains(err.Error(), "server.command is empty") {
		t.Errorf("empty command: %v", err)
	}
	if _, err := Start(Config{Command: []string{"/nonexistent/vllm"}}); err == nil || !strings.Contains(err.Error(), "/nonexistent/vllm") {
		t.Errorf("missing binary: %v", err)
	}
	if _, err := Start(Config{Command: []string{"true"}, Log: "/nonexistent/dir/log"}); err == nil || !strings.Contains(err.Error(), "server.log") {
		t.Errorf("bad log path: %v", err)
	}
}

func TestMergeEnv(t *testing.T) {
	t.Parallel()
	got := mergeEnv([]string{"A=1", "B=2", "C=x=y"}, map[string]string{"B": "3", "D": "4"})
	want := "A=1 C=x=y B=3 D=4"
	if strings.Join(got, " ") != want {
		t.Errorf("mergeEnv = %v, want %s", got, want)
	}
}

func TestHealthFailsMidRun(t *testing.T) {
	t.Parallel()
	p := start(t, helperConfig(t, "sick=500ms"))
	ctx := context.Background()
	if _, err := p.Ready(ctx, nil, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.Watch(ctx, nil, 50*time.Millisecond, 3):
		var he *HealthError
		if !errors.As(err, &he) || he.Failures != 3 || !strings.Contains(err.Error(), "503") {
			t.Fatalf("watch err = %v (%T)", err, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the failing health check was not reported")
	}

	// A cancelled watch closes its channel without an error.
	cctx, cancel := context.WithCancel(ctx)
	w := p.Watch(cctx, nil, time.Hour, 1)
	cancel()
	if err, open := <-w; open {
		t.Errorf("cancelled watch sent %v", err)
	}
}

func TestLaunch(t *testing.T) {
	t.Parallel()
	cfg := helperConfig(t, "ok")
	cfg.ReadyTimeout = 20 * time.Second
	p, info, err := Launch(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != "0.0.0-test" {
		t.Errorf("info = %+v", info)
	}
	p.Stop()

	// A server that never gets ready is stopped by Launch itself.
	cfg = helperConfig(t, "slow=1h")
	cfg.ReadyTimeout = 300 * time.Millisecond
	p, _, err = Launch(context.Background(), cfg, nil)
	var nr *NotReadyError
	if !errors.As(err, &nr) || p != nil {
		t.Fatalf("Launch of a never-ready server: %v, %v", p, err)
	}
	f, ok := FailureOf(err)
	if !ok || !f.BeforeReady || f.Exited || !strings.Contains(f.Summary, "did not become ready") || !strings.Contains(f.Tail, "Uvicorn") {
		t.Errorf("FailureOf = %+v, %v", f, ok)
	}
}

func TestParseEnv(t *testing.T) {
	t.Parallel()
	env, err := ParseEnv([]string{"CUDA_VISIBLE_DEVICES=0,1", "EMPTY=", "X=a=b"})
	if err != nil || env["CUDA_VISIBLE_DEVICES"] != "0,1" || env["EMPTY"] != "" || env["X"] != "a=b" {
		t.Errorf("ParseEnv = %v, %v", env, err)
	}
	if _, err := ParseEnv([]string{"A=1", "hf_secretvalue"}); err == nil || !strings.Contains(err.Error(), "entry 2") || strings.Contains(err.Error(), "hf_") {
		t.Errorf("bad entry: %v", err)
	}
}

// TestServerWithoutHealth: a launched server without /health is ready
// once /v1/models lists a model (as --url has always accepted), and the
// health watch of the run probes /v1/models instead of declaring it dead.
func TestServerWithoutHealth(t *testing.T) {
	t.Parallel()
	p := start(t, helperConfig(t, "nohealth"))
	ctx := context.Background()
	info, err := p.Ready(ctx, nil, 10*time.Second)
	if err != nil {
		t.Fatalf("Ready: %v", err)
	}
	if info.Health || info.LivenessPath() != "/v1/models" {
		t.Errorf("info = %+v", info)
	}
	wctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
	defer cancel()
	if err := <-p.Watch(wctx, nil, 50*time.Millisecond, 3); err != nil {
		t.Errorf("watch of a live server without /health: %v", err)
	}
}
