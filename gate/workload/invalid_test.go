package workload

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Case is one file of testdata/invalid: the file starts with a comment
// "# want: LINE: text" (the error is in the file itself) or
// "# want: PATH:LINE: text" (in a dataset file, PATH relative to testdata).
type invalidCase struct {
	Path string // the workload file
	File string // the file the error must name
	Line int
	Text string
}

var wantHeader = regexp.MustCompile(`^# want: (?:(\S+):)?(\d+): (.+)$`)

// invalidCases reads the expectations of testdata/invalid. dir is the
// path of testdata/invalid as the caller sees it.
func invalidCases(t testing.TB, dir string) []invalidCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no invalid testdata in %s: %v", dir, err)
	}
	var out []invalidCase
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Scan()
		fh.Close()
		m := wantHeader.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("%s: first line must be '# want: [FILE:]LINE: text'", p)
		}
		c := invalidCase{Path: p, File: p, Text: m[3]}
		if m[1] != "" {
			c.File = filepath.Join(filepath.Dir(dir), m[1])
		}
		c.Line, _ = strconv.Atoi(m[2])
		out = append(out, c)
	}
	return out
}

// TestInvalidFiles loads every file of testdata/invalid and expects its
// declared error, as file:line: text, among the returned errors.
func TestInvalidFiles(t *testing.T) {
	for _, c := range invalidCases(t, "testdata/invalid") {
		t.Run(strings.TrimSuffix(filepath.Base(c.Path), ".yaml"), func(t *testing.T) {
			ms, err := LoadFile(c.Path)
			if err == nil {
				t.Fatalf("accepted (%d cells)", len(ms))
			}
			want := c.File + ":" + strconv.Itoa(c.Line) + ": "
			found := false
			for _, line := range strings.Split(err.Error(), "\n") {
				if strings.HasPrefix(line, want) && strings.Contains(line, c.Text) {
					found = true
				}
			}
			if !found {
				t.Errorf("want an error %q...%q, got:\n%v", want, c.Text, err)
			}
			var we *Error
			if !errors.As(err, &we) || we.Line < 1 {
				t.Errorf("error is not an *Error with a line: %v", err)
			}
		})
	}
}
