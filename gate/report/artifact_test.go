package report

import (
	"strings"
	"testing"
)

// TestArtifactLine: the footer names the uploaded artifact and links the
// run page; the name is code-escaped and the URL cannot end the link.
func TestArtifactLine(t *testing.T) {
	for _, tc := range []struct {
		a    Artifact
		want string
	}{
		{Artifact{}, ""},
		{Artifact{Name: "perfgate-h100"}, "\nFull report and raw results: artifact `perfgate-h100` of this workflow run."},
		{Artifact{Name: "perfgate-h100", URL: "https://github.com/o/r/actions/runs/42"},
			"\nFull report and raw results: artifact `perfgate-h100` of [this workflow run](https://github.com/o/r/actions/runs/42)."},
		{Artifact{Name: "a`b", URL: "https://x/(y) z"},
			"\nFull report and raw results: artifact " + Code("a`b") + " of [this workflow run](https://x/%28y%29%20z)."},
	} {
		if got := artifactLine(tc.a); got != tc.want {
			t.Errorf("artifactLine(%+v) =\n%q, want\n%q", tc.a, got, tc.want)
		}
	}
	var b strings.Builder
	d := manyWorkloads(2, 1)
	d.Profile = "p"
	d.Artifact = Artifact{Name: "perfgate-p", URL: "https://github.com/o/r/actions/runs/42"}
	if err := Markdown(&b, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "artifact `perfgate-p` of [this workflow run](https://github.com/o/r/actions/runs/42).") {
		t.Errorf("the comment does not link the artifact:\n%s", b.String())
	}
}
