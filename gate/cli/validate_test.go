package cli

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// validateRun runs perfgate in-process with buffers.
func validateRun(args ...string) (ExitCode, string, string) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

var validateWant = regexp.MustCompile(`^# want: (?:(\S+):)?(\d+): (.+)$`)

// validateCases returns, per file of the workload package's invalid
// testdata, the "file:line: " prefix and text its error must have (the
// files declare it in their first line).
func validateCases(t *testing.T) map[string][2]string {
	t.Helper()
	dir := filepath.Join("..", "workload", "testdata", "invalid")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(paths) < 30 {
		t.Fatalf("found %d invalid files in %s", len(paths), dir)
	}
	cases := map[string][2]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		m := validateWant.FindStringSubmatch(first)
		if m == nil {
			t.Fatalf("%s: no '# want:' line", p)
		}
		file := p
		if m[1] != "" {
			file = filepath.Join(filepath.Dir(dir), m[1])
		}
		cases[p] = [2]string{file + ":" + m[2] + ": ", m[3]}
	}
	return cases
}

func validateHas(stderr, prefix, text string) bool {
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) && strings.Contains(sc.Text(), text) {
			return true
		}
	}
	return false
}

func TestValidateInvalidFiles(t *testing.T) {
	t.Parallel()
	cases := validateCases(t)
	for path, want := range cases {
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, _, stderr := validateRun("validate", path)
			if code != ExitInvalid {
				t.Errorf("exit %d, want 2", code)
			}
			if !validateHas(stderr, want[0], want[1]) {
				t.Errorf("stderr lacks %q...%q:\n%s", want[0], want[1], stderr)
			}
		})
	}
	// The whole directory at once reports every file's problem.
	code, _, stderr := validateRun("validate", filepath.Join("..", "workload", "testdata", "invalid"))
	if code != ExitInvalid {
		t.Errorf("directory: exit %d, want 2", code)
	}
	for path, want := range cases {
		if !validateHas(stderr, want[0], want[1]) {
			t.Errorf("directory: stderr lacks the error of %s", path)
		}
	}
}

func TestValidateShippedWorkloads(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := validateRun("validate", filepath.Join("..", "..", "workloads"))
	if code != ExitPass {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "ok  cx8-4000-1000-c16  ") || !strings.Contains(stdout, "ok  smoke-burst-c4  ") {
		t.Errorf("stdout lacks cells:\n%s", stdout)
	}
	// The ShareGPT workloads are skipped with a warning naming the download.
	for _, f := range []string{"a100-sharegpt-1000.yaml", "h100-sharegpt-r1000.yaml"} {
		if !strings.Contains(stderr, f) || !strings.Contains(stderr, "warning: dataset file") {
			t.Errorf("stderr lacks the warning for %s:\n%s", f, stderr)
		}
	}
}

func TestValidateUsage(t *testing.T) {
	t.Parallel()
	if code, _, _ := validateRun("validate"); code != ExitInvalid {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	code, _, stderr := validateRun("validate", "no/such/file.yaml")
	if code != ExitInvalid || !strings.Contains(stderr, "no/such/file.yaml: no such file or directory") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}
