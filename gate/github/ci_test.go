package github

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRepoURL(t *testing.T) {
	for _, tc := range []struct {
		in                string
		owner, name, host string
		ok                bool
	}{
		{"git@github.com:vllm-project/vllm.git", "vllm-project", "vllm", "github.com", true},
		{"https://github.com/vllm-project/vllm.git", "vllm-project", "vllm", "github.com", true},
		{"https://github.com/acme/engine", "acme", "engine", "github.com", true},
		{"ssh://git@GitHub.com/acme/engine.git", "acme", "engine", "github.com", true},
		{"https://x-access-token:secret@ghe.corp/acme/engine.git", "acme", "engine", "ghe.corp", true},
		{"https://github.com/acme", "", "", "", false},
		{"https://github.com/acme/engine/extra", "", "", "", false},
		{"not a url", "", "", "", false},
		{"git@github.com:../x.git", "", "", "", false},
	} {
		o, n, h, ok := parseRepoURL(tc.in)
		if o != tc.owner || n != tc.name || h != tc.host || ok != tc.ok {
			t.Errorf("%q: %q %q %q %v", tc.in, o, n, h, ok)
		}
	}
}

func FuzzParseRepoURL(f *testing.F) {
	for _, s := range []string{"git@github.com:a/b.git", "https://github.com/a/b", "ssh://git@h/a/b.git", "", "@:", "http://[::1]/a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, n, _, ok := parseRepoURL(s)
		if ok && (!validName(o) || !validName(n)) {
			t.Fatalf("%q gave %q/%q", s, o, n)
		}
	})
}

// buildkiteVars are the variables a Buildkite pull request build has.
func buildkiteVars(pr string) map[string]string {
	return map[string]string{
		"BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": pr, "BUILDKITE_REPO": "git@github.com:acme/engine.git",
		"BUILDKITE_PULL_REQUEST_REPO": "https://github.com/someone/engine-fork.git",
		"BUILDKITE_COMMIT":            "0123abc", "BUILDKITE_BUILD_URL": "https://buildkite.com/acme/perf/builds/9",
		"GITHUB_TOKEN": testToken,
	}
}

func TestEnvOtherCIs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		vars    map[string]string
		given   Given
		ci      CI
		owner   string
		pr      int
		notPost string // substring of NotPosted; "" when posting is possible
	}{
		{"buildkite PR", buildkiteVars("42"), Given{}, Buildkite, "acme/engine", 42, ""},
		{"buildkite branch build", buildkiteVars("false"), Given{}, Buildkite, "acme/engine", 0, "not for a pull request"},
		{"buildkite, PR given", buildkiteVars("false"), Given{PR: 5}, Buildkite, "acme/engine", 5, ""},
		{"gitlab external PR", map[string]string{"GITLAB_CI": "true", "CI_EXTERNAL_PULL_REQUEST_IID": "17",
			"CI_EXTERNAL_PULL_REQUEST_TARGET_REPOSITORY": "acme/engine", "CI_PIPELINE_URL": "https://gitlab.com/acme/engine/-/pipelines/3", "GITHUB_TOKEN": testToken}, Given{}, GitLab, "acme/engine", 17, ""},
		{"gitlab merge request", map[string]string{"GITLAB_CI": "true", "CI_MERGE_REQUEST_IID": "3", "GITHUB_TOKEN": testToken}, Given{}, GitLab, "/", 0, "GitLab merge request"},
		{"gitlab, given", map[string]string{"GITLAB_CI": "true", "PERFGATE_GITHUB_TOKEN": testToken}, Given{Repository: "acme/engine", PR: 8}, GitLab, "acme/engine", 8, ""},
		{"no CI", map[string]string{}, Given{}, NoCI, "/", 0, "not in GitHub Actions, Buildkite or GitLab CI"},
		{"no CI, given", map[string]string{"GITHUB_TOKEN": testToken}, Given{Repository: "acme/engine", PR: 3}, NoCI, "acme/engine", 3, ""},
		{"no CI, no token", map[string]string{}, Given{Repository: "acme/engine", PR: 3}, NoCI, "acme/engine", 3, "no GitHub token"},
		{"buildkite on GHES without API URL", map[string]string{"BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "4", "BUILDKITE_REPO": "git@ghe.corp:acme/engine.git", "GITHUB_TOKEN": testToken},
			Given{}, Buildkite, "/", 4, "set GITHUB_API_URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, err := EnvFrom(mapEnv(tc.vars))
			if err != nil {
				t.Fatal(err)
			}
			if err := env.Apply(tc.given); err != nil {
				t.Fatal(err)
			}
			if env.CI != tc.ci || env.Owner+"/"+env.Repo != tc.owner || env.PR != tc.pr {
				t.Errorf("CI %q repo %s/%s PR %d", env.CI, env.Owner, env.Repo, env.PR)
			}
			got := env.NotPosted()
			if (tc.notPost == "") != (got == "") || !strings.Contains(got, tc.notPost) {
				t.Errorf("NotPosted %q, want %q", got, tc.notPost)
			}
			if strings.Contains(got, testToken) {
				t.Error("token in the message")
			}
		})
	}
}

func TestEnvBadValues(t *testing.T) {
	for _, tc := range []struct {
		vars  map[string]string
		given Given
		want  string
	}{
		{map[string]string{"BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "abc"}, Given{}, "BUILDKITE_PULL_REQUEST"},
		{map[string]string{"BUILDKITE": "true", "BUILDKITE_REPO": "https://x:tok@github.com/only"}, Given{}, "BUILDKITE_REPO"},
		{map[string]string{"GITLAB_CI": "true", "CI_EXTERNAL_PULL_REQUEST_IID": "-1"}, Given{}, "CI_EXTERNAL_PULL_REQUEST_IID"},
		{map[string]string{}, Given{Repository: "acme"}, "--repo"},
		{map[string]string{}, Given{Repository: "acme/en gine"}, "--repo"},
		{map[string]string{}, Given{PR: -2}, "--pr"},
	} {
		env, err := EnvFrom(mapEnv(tc.vars))
		if err == nil {
			err = env.Apply(tc.given)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "tok@") {
			t.Errorf("%v %+v: error %v, want one naming %s", tc.vars, tc.given, err, tc.want)
		}
	}
}

// TestPublishBuildkite: a Buildkite pull request build (variables only)
// gets the comment on the fake GitHub API, an annotation with the report
// and the output directory uploaded, through a fake buildkite-agent found
// on the PATH the environment names.
func TestPublishBuildkite(t *testing.T) {
	fake, api := newFake(t)
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "agent.log")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nif [ \"$1\" = annotate ]; then cat > " + log + ".annotation; fi\n"
	if err := os.WriteFile(filepath.Join(bin, "buildkite-agent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := buildkiteVars("42")
	vars["GITHUB_API_URL"], vars["PATH"] = api, bin
	env, err := EnvFrom(mapEnv(vars))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := Publish(context.Background(), env, sample, Options{Comment: CommentAlways, ArtifactDir: "perfgate-out"})
	if err != nil {
		t.Fatal(err)
	}
	if pub.Comment.Action != Created || len(fake.Comments(42)) != 1 || !strings.Contains(fake.Comments(42)[0].Body, "Regression") {
		t.Fatalf("comment %+v, stored %+v", pub.Comment, fake.Comments(42))
	}
	calls := read(t, log)
	if !strings.Contains(calls, "annotate --style error --context perfgate-h100") || !strings.Contains(calls, "artifact upload perfgate-out/**/*") {
		t.Errorf("agent calls:\n%s", calls)
	}
	if a := read(t, log+".annotation"); !strings.Contains(a, "**Regression** in w1") {
		t.Errorf("annotation %q", a)
	}
	if len(pub.Notes) != 2 {
		t.Errorf("notes %q", pub.Notes)
	}
}

// TestPublishBuildkiteNoAgent: without buildkite-agent the comment is
// still posted and a note says what was not done.
func TestPublishBuildkiteNoAgent(t *testing.T) {
	fake, api := newFake(t)
	vars := buildkiteVars("42")
	vars["GITHUB_API_URL"], vars["PATH"] = api, t.TempDir()
	env, _ := EnvFrom(mapEnv(vars))
	pub, err := Publish(context.Background(), env, sample, Options{Comment: CommentAlways})
	if err != nil || len(fake.Comments(42)) != 1 || len(pub.Notes) != 1 || !strings.Contains(pub.Notes[0], "not on PATH") {
		t.Errorf("err %v, notes %q, comments %d", err, pub.Notes, len(fake.Comments(42)))
	}
}

func TestAnnotationStyle(t *testing.T) {
	for v, want := range map[string]string{"pass": "success", "inconclusive": "warning", "regression": "error", "run-failed": "error", "": "info"} {
		if got := annotationStyle(v); got != want {
			t.Errorf("%q: %q", v, got)
		}
	}
	if got := AnnotationContext("h100 8x/tp"); got != "perfgate-h100_8x_tp" {
		t.Error(got)
	}
}
