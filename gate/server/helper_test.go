package server

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a fake server: with PERFGATE_TEST_SERVER set,
// TestMain runs helperServer instead of the tests (the os/exec pattern).
// Modes:
//
//	ok          serve /health, /v1/models, /version until SIGTERM
//	slow=D      /health answers 503 for duration D, then 200
//	crash=D     serve, then print a fatal error and exit 3 after D
//	sick=D      /health answers 200 for duration D, then 503 (engine dead)
//	stubborn    ignore SIGTERM (Stop must escalate to SIGKILL)
//	spawn       start a child process in the same group, print its pid
//	silent      print nothing (the URL must be configured)
//	exit        print an error and exit 2 at once
//	sleep       sleep (the child of spawn)
//	env         print the environment, then exit 0
//	nohealth    serve like ok, but without /health (404)
//	dying=D     serve like ok; GET /die closes every connection and the
//	            port, and the process exits 3 D later (a server still
//	            exiting when the run ends)
//
// With PERFGATE_TEST_PIDFILE set, the server first writes its pid there.
const helperEnv = "PERFGATE_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		helperServer(mode)
		return
	}
	os.Exit(runTests(m))
}

// perfgateBin is the real perfgate binary, built once for the tests that
// launch `perfgate sim` as the server under test.
var perfgateBin string

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "perfgate-server-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	perfgateBin = filepath.Join(dir, "perfgate")
	build := exec.Command("go", "build", "-o", perfgateBin, "github.com/perfgate/perfgate/cmd/perfgate")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building perfgate for the simulator tests:", err)
		return 1
	}
	return m.Run()
}

func helperServer(mode string) {
	name, arg, _ := strings.Cut(mode, "=")
	if f := os.Getenv("PERFGATE_TEST_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	switch name {
	case "env":
		// Values reversed: the log file is scrubbed of every secret value
		// perfgate knows, and the test must still see which ones arrived.
		for _, kv := range os.Environ() {
			fmt.Println(reverse(kv))
		}
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "error: unknown model foo")
		os.Exit(2)
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
	}
	addr := os.Getenv("PERFGATE_TEST_ADDR")
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if name == "spawn" {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), helperEnv+"=sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("child %d\n", child.Process.Pid)
		go child.Wait()
	}
	fmt.Printf("INFO: loading model with key %s\n", os.Getenv("VLLM_API_KEY"))
	if name != "silent" {
		fmt.Printf("INFO:     Uvicorn running on http://%s (Press CTRL+C to quit)\n", ln.Addr())
	}
	start := time.Now()
	var slow time.Duration
	if name == "slow" {
		slow, _ = time.ParseDuration(arg)
	}
	var sick time.Duration
	if name == "sick" {
		sick, _ = time.ParseDuration(arg)
	}
	if name == "crash" {
		d, _ := time.ParseDuration(arg)
		time.AfterFunc(d, func() {
			fmt.Fprintln(os.Stderr, "RuntimeError: CUDA error: an illegal memory access was encountered")
			os.Exit(3)
		})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		if name == "nohealth" {
			http.NotFound(w, r)
			return
		}
		if time.Since(start) < slow || name == "sick" && time.Since(start) > sick {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
	})
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []map[string]any{{"id": "fake-model", "max_model_len": 4096}}})
	})
	mux.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version":"0.0.0-test"}`)
	})
	hs := &http.Server{Handler: mux}
	mux.HandleFunc("/die", func(w http.ResponseWriter, r *http.Request) {
		go hs.Close()
	})
	hs.Serve(ln)
	if name == "dying" {
		d, _ := time.ParseDuration(arg)
		time.Sleep(d)
		fmt.Fprintln(os.Stderr, "RuntimeError: engine core died")
		os.Exit(3)
	}
}

// reverse returns s backwards (the env helper's output, see "env").
func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
