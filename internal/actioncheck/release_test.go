package actioncheck

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// locate runs action.yml's "locate" step as the runner would, with the
// action at ref of repo o/r served by server, and returns its outputs.
func locate(t *testing.T, server, ref string) (map[string]string, string) {
	t.Helper()
	var script string
	for _, s := range load(t).Runs.Steps {
		if s.ID == "locate" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step with id locate")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "github_output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_OUTPUT=" + out,
		"GITHUB_ACTION_PATH=" + root, "RUNNER_TEMP=" + filepath.Join(dir, "tmp"), "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"GITHUB_SERVER_URL=" + server, "ACTION_REF=" + ref, "ACTION_REPO=o/r"}
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("locate step: %v\n%s", err, log)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		outputs[k] = v
	}
	return outputs, string(log)
}

// release serves a release's assets as github.com does under
// /o/r/releases/download/<tag>/, with the checksum file listing sum for
// the binary.
func release(t *testing.T, tag, binary, sum string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	base := "/o/r/releases/download/" + tag + "/"
	mux.HandleFunc(base+"perfgate_linux_amd64", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, binary) })
	mux.HandleFunc(base+"checksums.txt", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "%s  perfgate_darwin_arm64\n%s  perfgate_linux_amd64\n", strings.Repeat("0", 64), sum)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestLocateDownloadsVerifiedRelease: at a release tag the step installs
// the release's binary when its sha256 matches checksums.txt, and falls
// back to a build (source=none) with a warning when it does not; other
// refs never download.
func TestLocateDownloadsVerifiedRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the step's sha256sum and date +%N are GNU coreutils")
	}
	binary := "#!/bin/sh\necho perfgate v1.2.3\n"
	h := sha256.Sum256([]byte(binary))
	good := hex.EncodeToString(h[:])

	outs, log := locate(t, release(t, "v1.2.3", binary, good).URL, "v1.2.3")
	if outs["source"] != "release" {
		t.Fatalf("good checksum: source %q, want release\n%s", outs["source"], log)
	}
	if got, err := os.ReadFile(outs["bin"]); err != nil || string(got) != binary {
		t.Errorf("installed binary %q, %v", got, err)
	}
	if !strings.HasPrefix(outs["key"], "perfgate-bin-linux-amd64-v1.2.3-") {
		t.Errorf("cache key %q", outs["key"])
	}

	outs, log = locate(t, release(t, "v1.2.3", binary+"tampered", good).URL, "v1.2.3")
	if outs["source"] != "none" || !strings.Contains(log, "::warning") {
		t.Errorf("bad checksum: source %q, want none with a warning\n%s", outs["source"], log)
	}
	if _, err := os.Stat(outs["bin"]); err == nil {
		t.Error("a binary failing its checksum was installed")
	}

	// The major tag's rolling release (the release workflow's "major" job)
	// is downloaded and verified like an exact tag's.
	outs, log = locate(t, release(t, "v1", binary, good).URL, "v1")
	if outs["source"] != "release" {
		t.Errorf("major tag v1: source %q, want release\n%s", outs["source"], log)
	}

	srv := release(t, "main", binary, good)
	if outs, log = locate(t, srv.URL, "main"); outs["source"] != "none" || strings.Contains(log, "::warning") {
		t.Errorf("branch ref: source %q, want none without a download\n%s", outs["source"], log)
	}
}

// TestReleaseAssetsMatchAction: the release workflow publishes the asset
// and checksum names the action downloads.
func TestReleaseAssetsMatchAction(t *testing.T) {
	wf, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	act, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`perfgate_${GOOS}_${GOARCH}`, "checksums.txt", "sha256sum"} {
		if !strings.Contains(string(wf), s) {
			t.Errorf("release.yml lacks %s", s)
		}
	}
	for _, s := range []string{`perfgate_${goos}_${goarch}`, "checksums.txt", `"$got" == "$want"`} {
		if !strings.Contains(string(act), s) {
			t.Errorf("action.yml lacks %s", s)
		}
	}
}

// TestReleaseMovesTheMajorTag: every snippet says perfgate/perfgate@v1, so
// the release workflow must move that tag and keep a release of that name
// with the assets and checksums the action downloads.
func TestReleaseMovesTheMajorTag(t *testing.T) {
	wf, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`major="${TAG%%.*}"`, `git/refs/tags/$major`, `"refs/tags/$major"`,
		`gh release upload "$major" perfgate_* checksums.txt --clobber`, "--latest=false", "needs: release"} {
		if !strings.Contains(string(wf), s) {
			t.Errorf("release.yml lacks %s", s)
		}
	}
}
