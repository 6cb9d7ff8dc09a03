package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
)

// The secret of the end-to-end secret scenarios (issue 20 items 9-11): a
// quote and a backslash in the middle, so it is written differently as
// itself, JSON-escaped and as a Python repr. Its two halves are long and
// unique: finding either anywhere means some form of it leaked.
const (
	e2eSecret = `Hq7Lm2Zx"Kx\Wv-mJ3pR8tYb2N`
	e2eHead   = "Hq7Lm2Zx"
	e2eTail   = "Wv-mJ3pR8tYb2N"
)

// grepClean fails the test if any file under dir, or any of texts, holds
// either half of e2eSecret: the done-when is that the whole
// output directory of every secret scenario greps clean.
func grepClean(t *testing.T, dir string, texts ...string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, piece := range []string{e2eHead, e2eTail} {
			if i := strings.Index(string(data), piece); i >= 0 {
				t.Errorf("%s holds the secret: …%q…", path, data[max(0, i-40):min(len(data), i+40)])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		for _, piece := range []string{e2eHead, e2eTail} {
			if j := strings.Index(s, piece); j >= 0 {
				t.Errorf("output %d holds the secret: …%q…", i, s[max(0, j-40):min(len(s), j+40)])
			}
		}
	}
	if files == 0 {
		t.Fatalf("%s: no files written", dir)
	}
}

// leakyServer writes a server script that prints its API key (given in
// its environment, as vLLM's VLLM_API_KEY) in a 200 KB log line, as a
// Python repr (vLLM logs its arguments) and JSON-escaped (an error body),
// then serves as the simulator. It returns the server command and the
// environment of the perfgate run: the key is perfgate's too, and this
// test binary started as the server is the simulator, not perfgate.
func leakyServer(t *testing.T) (string, []string) {
	t.Helper()
	exe := runServerCmd(t) // skips under -short
	script := filepath.Join(t.TempDir(), "srv.sh")
	body := `k="$VLLM_API_KEY"
js=$(printf '%s' "$k" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
py=$(printf '%s' "$k" | sed -e 's/\\/\\\\/g')
{ head -c 100000 /dev/zero | tr '\0' a; printf '%s' "$k"; head -c 100000 /dev/zero | tr '\0' b; echo; }
printf '%s\n' "INFO non-default args: {'api_key': '$py', 'model': 'm'}"
printf '%s\n' "ERROR 401 {\"object\": \"error\", \"message\": \"bad key $js\"}"
exec ` + exe + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + script, testEnviron("PERFGATE_API_KEY="+e2eSecret, "CLI_TEST_PERFGATE_MAIN=")
}

// TestSecretsLongLogLineRun: issue 20 items 9 and 11 through perfgate
// run: a launched server prints its key in a line over 64 KiB, as a
// Python repr and JSON-escaped. Nothing under the output directory (the
// results, server.log) nor stdout and stderr holds any form of it.
func TestSecretsLongLogLineRun(t *testing.T) {
	t.Parallel()
	srv, env := leakyServer(t)
	dir := t.TempDir()
	code, out, errs := runMainIn(context.Background(), env, append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "-o", dir, "--trials", "1",
		"--server-cmd", srv, "--server-env", "CLI_TEST_SERVE_SIM=1", "--server-env", "VLLM_API_KEY="+e2eSecret,
		"--server-log", filepath.Join(dir, "server.log"), "--ready-timeout", "30s")...)
	if code != ExitPass {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	log, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil || !strings.Contains(string(log), "aaaa[redacted]bbbb") || !strings.Contains(string(log), "'api_key': '[redacted]'") {
		t.Errorf("server.log: %v; the long line and the repr are not there, scrubbed: %.200q", err, log)
	}
	grepClean(t, dir, out, errs)
}

// TestSecretsLongLogLineAB: the same server in both arms of perfgate ab:
// every block's log, both arms' results and the reports grep clean.
func TestSecretsLongLogLineAB(t *testing.T) {
	t.Parallel()
	srv, env := leakyServer(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, out, errs := abMainEnv(ctx, env, "-w", "testdata/gate/decode-a.yaml", "-o", dir, "--a-cmd", srv, "--b-cmd", srv,
		"--server-env", "CLI_TEST_SERVE_SIM=1", "--server-env", "VLLM_API_KEY="+e2eSecret,
		"--blocks", "4", "--block-trials", "1", "--ready-timeout", "30s", "--max-dispatch-lag-ms", "1000")
	if code == ExitInvalid || code == ExitRunFailed {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "server-block-01.log")); err != nil {
		t.Errorf("no block log: %v", err)
	}
	grepClean(t, dir, out, errs)
}

// fakeLeakyGPUTools returns the environment of a run with runner health
// on, the API key set, and first on its PATH an nvidia-smi and a dmesg
// that quote the API key (from perfgate's environment, as a driver error or a kernel
// line quoting a command line would): nvidia-smi failing with it in its
// error text when failing is set, else answering as a healthy GPU while
// dmesg logs an Xid line with it from its second reading on.
func fakeLeakyGPUTools(t *testing.T, failing bool) []string {
	t.Helper()
	dir := t.TempDir()
	smi := fmt.Sprintf(`#!/bin/sh
case "$1" in
--query-gpu=%s) printf '%%s' '%s';;
--query-compute-apps=*) exit 0;;
*) exit 0;;
esac
`, health.GPUQuery(false), healthyGPU)
	if failing {
		smi = "#!/bin/sh\nprintf 'Failed to initialize NVML: Driver/library version mismatch (caller: vllm serve --api-key %s)\\n' \"$PERFGATE_API_KEY\" >&2\nexit 9\n"
	}
	dmesg := `#!/bin/sh
d=$(dirname "$0")
n=$(( $(cat "$d/n" 2>/dev/null || echo 0) + 1 )); echo $n > "$d/n"
echo "[    1.000000] NVRM: loading"
[ $n -ge 2 ] && printf '[ 99999.5] NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=vllm --api-key %s, Graphics Exception\n' "$PERFGATE_API_KEY"
exit 0
`
	for name, script := range map[string]string{"nvidia-smi": smi, "dmesg": dmesg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return testEnviron("PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), session.HealthEnv+"=", "PERFGATE_API_KEY="+e2eSecret)
}

// TestSecretsGPUToolText is issue 20 item 10: nvidia-smi's error text and
// kernel Xid lines reached the results and the comment unscrubbed. A run
// whose nvidia-smi fails quoting the API key, and one whose kernel log
// quotes it in an Xid line (the trial is invalid, the line is its
// reason), grep clean: results, report and terminal output.
func TestSecretsGPUToolText(t *testing.T) {
	t.Parallel()
	for _, failing := range []bool{true, false} {
		env := fakeLeakyGPUTools(t, failing)
		ts := runSim(t)
		dir := t.TempDir()
		code, out, errs := runMainIn(context.Background(), env, append(runLax,
			"-w", "testdata/gate/decode-a.yaml", "--url", ts.URL, "-o", dir, "--trials", "2")...)
		if code == ExitInvalid {
			t.Fatalf("failing %v: exit %v\nstdout:\n%s\nstderr:\n%s", failing, code, out, errs)
		}
		r, err := result.Read(filepath.Join(dir, "decode-a.json"))
		if err != nil {
			t.Fatal(err)
		}
		h := r.Trials[0].Health
		switch {
		case h == nil:
			t.Errorf("failing %v: no health recorded", failing)
		case failing && !strings.Contains(h.GPU, "Driver/library version mismatch"):
			t.Errorf("nvidia-smi's error is not recorded: %q", h.GPU)
		case !failing && (len(h.Xid) == 0 || !strings.Contains(h.Xid[0], "Graphics Exception")):
			t.Errorf("the Xid line is not recorded: %q (%s)", h.Xid, h.XidNote)
		}
		grepClean(t, dir, out, errs)
	}
}
