package config

import (
	"strings"
	"testing"
)

// TestCommentModes: github.comment takes the four modes, and the old
// booleans from a file (YAML true/false) or the environment (text) mean
// always and never; anything else is an error naming the key and source.
func TestCommentModes(t *testing.T) {
	for _, tc := range []struct {
		name, file, env string
		want            CommentMode
		err             string
	}{
		{name: "default", want: CommentAlways},
		{name: "yaml true", file: "github:\n  comment: true\n", want: CommentAlways},
		{name: "yaml false", file: "github:\n  comment: false\n", want: CommentNever},
		{name: "yaml on-change", file: "github:\n  comment: on-change\n", want: CommentOnChange},
		{name: "env not-pass", env: "not-pass", want: CommentNotPass},
		{name: "env false", env: "false", want: CommentNever},
		{name: "env beats file", file: "github:\n  comment: never\n", env: "ON-CHANGE", want: CommentOnChange},
		{name: "unknown", file: "github:\n  comment: sometimes\n", err: `perfgate.yaml:2: github.comment: "sometimes" must be always`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{}
			if tc.file != "" {
				opts.File = writeFile(t, t.TempDir(), "perfgate.yaml", tc.file)
			}
			if tc.env != "" {
				opts.Environ = []string{"PERFGATE_GITHUB_COMMENT=" + tc.env}
			}
			l, err := Load(opts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Load error = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Config.GitHub.Comment != tc.want {
				t.Errorf("github.comment = %q, want %q", l.Config.GitHub.Comment, tc.want)
			}
		})
	}
}
