package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestServerFailureRendered: a launched server's crash is in the PR
// comment, not only in the result JSON: what happened and the end of its
// log, in a code block the log cannot break out of (it is text from the
// candidate server: it may hold HTML, mentions, fences, bidi overrides).
func TestServerFailureRendered(t *testing.T) {
	d := loadFixture(t, "pass")
	d.RunError = "the server exited with status 1 during the run"
	d.ServerFailure = &ServerFailure{
		Summary: "the server exited with status 1 during the run",
		Tail: "INFO: loading\n```\n</details><img src=x onerror=alert(1)> @org/team [x](http://evil)\n" +
			"RuntimeError: CUDA error\u202e gnp.exe\n",
	}
	var b bytes.Buffer
	if err := Markdown(&b, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"Run failed: the server exited with status 1 during the run",
		"<details open><summary>Last 4 lines of the server's log</summary>", "RuntimeError: CUDA error gnp.exe"} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q:\n%s", want, md)
		}
	}
	start := strings.Index(md, "```text\n")
	end := strings.Index(md[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("no code block:\n%s", md)
	}
	block := md[start+8 : start+8+end]
	if !strings.Contains(block, "</details><img src=x") || strings.ContainsRune(block, '\u202e') {
		t.Errorf("the log left its code block or kept a bidi override:\n%s", block)
	}
	if strings.Count(md, "```")%2 != 0 {
		t.Errorf("unbalanced fences:\n%s", md)
	}
	if n := strings.Count(md, "the server exited with status 1"); n != 2 { // headline + caution of the run error
		t.Errorf("the summary appears %d times, want 2:\n%s", n, md)
	}

	// Under a tight limit the log shrinks before the headline goes.
	b.Reset()
	d.ServerFailure.Tail = strings.Repeat("log line "+strings.Repeat("x", 100)+"\n", 200)
	if err := Markdown(&b, d, 3000); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "### ") || strings.Count(b.String(), "log line") > 10 {
		t.Errorf("tight comment (%d log lines):\n%s", strings.Count(b.String(), "log line"), b.String())
	}
}

func TestCodeBlock(t *testing.T) {
	got := CodeBlock("a`b\tc\x1b[31m\nline2")
	want := "```text\na\u02cbb c[31m\nline2\n```\n"
	if got != want {
		t.Errorf("CodeBlock = %q, want %q", got, want)
	}
}
