package cli

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fakegithub"
)

// ciGate is a history gate whose environment is a CI's, with the fake
// GitHub API and a fake buildkite-agent on the PATH that environment
// names (it logs its arguments and keeps an annotation's body).
type ciGate struct {
	*historyGate
	fake     *fakegithub.Server
	env      map[string]string
	agentLog string
}

func newCIGate(t *testing.T, env map[string]string) *ciGate {
	g := &ciGate{historyGate: newHistoryGate(t, ""), env: env}
	g.historyGate.environ = func() []string { // g.env alone, as it is when the gate runs
		var env []string
		for k, v := range g.env {
			env = append(env, k+"="+v)
		}
		return env
	}
	g.fake = &fakegithub.Server{Token: "ghs_ci", Owner: "acme", Repo: "engine"}
	api := httptest.NewServer(g.fake)
	t.Cleanup(api.Close)
	bin := t.TempDir()
	g.agentLog = filepath.Join(g.dir, "agent.log")
	script := "#!/bin/sh\necho \"$*\" >> " + g.agentLog + "\nif [ \"$1\" = annotate ]; then cat > " + g.agentLog + ".annotation; fi\n"
	if err := os.WriteFile(filepath.Join(bin, "buildkite-agent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env["GITHUB_API_URL"], env["PATH"] = api.URL, bin
	g.promote(sha('a'), 1)
	return g
}

// TestGateBuildkite: a Buildkite pull request build, known from its
// variables alone, gets the PR comment on the fake GitHub API, the report
// as a build annotation and the output directory as artifacts.
func TestGateBuildkite(t *testing.T) {
	t.Parallel()
	g := newCIGate(t, map[string]string{
		"BUILDKITE": "true", "BUILDKITE_PULL_REQUEST": "42", "BUILDKITE_REPO": "git@github.com:acme/engine.git",
		"BUILDKITE_COMMIT": "0123abc", "BUILDKITE_BUILD_URL": "https://buildkite.com/acme/perf/builds/9", "GITHUB_TOKEN": "ghs_ci",
	})
	code, comment, errs := g.gate(2) // beyond the uncalibrated default between-session noise (8 %)
	if code != ExitRegression {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	posted := g.fake.Comments(42)
	if len(posted) != 1 || !strings.Contains(posted[0].Body, "Regression") {
		t.Fatalf("comments %+v\nstderr:\n%s", posted, errs)
	}
	calls, err := os.ReadFile(g.agentLog)
	if err != nil || !strings.Contains(string(calls), "annotate --style error --context perfgate-p") || !strings.Contains(string(calls), "artifact upload "+filepath.Join(g.dir, "out")+"/**/*") {
		t.Errorf("agent calls %q (%v)", calls, err)
	}
	annotation, _ := os.ReadFile(g.agentLog + ".annotation")
	if first, _, _ := strings.Cut(comment, "\n"); len(annotation) == 0 || !strings.Contains(string(annotation), first) {
		t.Errorf("annotation %.200q does not carry the report (%q)", annotation, first)
	}
	for _, want := range []string{"PR comment created", "Buildkite annotation perfgate-p written", "Buildkite artifacts uploaded"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "ghs_ci") {
		t.Error("token on stderr")
	}
}

// TestGateNoCI: outside every known CI the gate says in one line that it
// posted no comment and what would make it post one; given --repo and --pr
// (and a token) it posts from anywhere.
func TestGateNoCI(t *testing.T) {
	t.Parallel()
	g := newCIGate(t, map[string]string{})
	code, _, errs := g.gate(1)
	var lines []string
	for _, l := range strings.Split(errs, "\n") {
		if strings.Contains(l, "PR comment") {
			lines = append(lines, l)
		}
	}
	if code != ExitPass || len(lines) != 1 || !strings.Contains(lines[0], "not in GitHub Actions, Buildkite or GitLab CI") || !strings.Contains(lines[0], "--repo") {
		t.Fatalf("exit %d, lines %q\n%s", code, lines, errs)
	}
	g.env["GITHUB_TOKEN"] = "ghs_ci"
	if code, _, errs := g.gate(1, "--repo", "acme/engine", "--pr", "3"); code != ExitPass || len(g.fake.Comments(3)) != 1 {
		t.Fatalf("--repo/--pr: exit %d, comments %d\n%s", code, len(g.fake.Comments(3)), errs)
	}
	// A publishing problem is a warning that names the setting, never a
	// change of the verdict.
	if code, _, errs := g.gate(1, "--repo", "acme", "--pr", "3"); code != ExitPass || !strings.Contains(errs, `github.repository (--repo, PERFGATE_GITHUB_REPOSITORY) "acme": want owner/name`) {
		t.Errorf("bad --repo: exit %d\n%s", code, errs)
	}
}

// TestGateGitLabExternalPR: a GitLab pipeline for a GitHub pull request
// comments on it from GitLab's own variables.
func TestGateGitLabExternalPR(t *testing.T) {
	t.Parallel()
	g := newCIGate(t, map[string]string{
		"GITLAB_CI": "true", "CI_EXTERNAL_PULL_REQUEST_IID": "17", "CI_EXTERNAL_PULL_REQUEST_TARGET_REPOSITORY": "acme/engine",
		"CI_PIPELINE_URL": "https://gitlab.com/acme/engine/-/pipelines/3", "GITHUB_TOKEN": "ghs_ci",
	})
	if code, _, errs := g.gate(1); code != ExitPass || len(g.fake.Comments(17)) != 1 {
		t.Fatalf("exit %d, comments %d\n%s", code, len(g.fake.Comments(17)), errs)
	}
}
