package github

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// actionsEnv is an Env for a pull_request run with temp output files.
func actionsEnv(t *testing.T, api string) (Env, string, string) {
	t.Helper()
	dir := t.TempDir()
	out, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	m := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/engine", "GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_EVENT_PATH": writeEvent(t, `{"pull_request": {"number": 7, "head": {"sha": "abc"}}}`),
		"GITHUB_API_URL":    api, "GITHUB_TOKEN": testToken,
		"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": summary,
	}
	env, err := EnvFrom(mapEnv(m))
	if err != nil {
		t.Fatal(err)
	}
	return env, out, summary
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var sample = Report{
	Profile:        "h100",
	Markdown:       "**Regression** in w1: TPOT p50 +7.9 %\n",
	Verdict:        "regression",
	Regressed:      []string{"w1:tpot_ms.p50", "w2@c16:itl_ms.p99"},
	ReportPath:     "perfgate-out/report.md",
	ComparisonPath: "perfgate-out/comparison.json",
	Annotations: []Annotation{
		{Level: Error, Title: "TPOT p50: +7.9 %, w1", File: "workloads/w1.yaml", Line: 3, Message: "100% sure?\nsecond line"},
		{Level: Warning, Message: "cell inconclusive"},
		{Level: Notice, Title: "note", Message: "::set-output name=x::y"},
	},
}

func TestPublishInActions(t *testing.T) {
	fake, api := newFake(t)
	env, outFile, summaryFile := actionsEnv(t, api)
	var stdout bytes.Buffer
	for run := 1; run <= 2; run++ {
		pub, err := Publish(context.Background(), env, sample, Options{Comment: CommentAlways, Out: &stdout})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		want := map[int]CommentAction{1: Created, 2: Unchanged}[run]
		if pub.Comment.Action != want {
			t.Errorf("run %d: comment %+v, want %s", run, pub.Comment, want)
		}
	}
	const d = "_GitHubActionsFileCommandDelimeter_"
	wantOut := ""
	for _, kv := range [][2]string{{"verdict", "regression"}, {"regressed", "w1:tpot_ms.p50,w2@c16:itl_ms.p99"},
		{"report-path", "perfgate-out/report.md"}, {"comparison-path", "perfgate-out/comparison.json"}} {
		wantOut += kv[0] + "<<" + d + "\n" + kv[1] + "\n" + d + "\n"
	}
	if got := read(t, outFile); got != wantOut+wantOut {
		t.Errorf("GITHUB_OUTPUT =\n%s\nwant (twice)\n%s", got, wantOut)
	}
	if got := read(t, summaryFile); got != sample.Markdown+"\n"+sample.Markdown+"\n" {
		t.Errorf("GITHUB_STEP_SUMMARY = %q", got)
	}
	wantCmds := "::error file=workloads/w1.yaml,line=3,title=TPOT p50%3A +7.9 %25%2C w1::100%25 sure?%0Asecond line\n" +
		"::warning::cell inconclusive\n" +
		"::notice title=note::::set-output name=x::y\n"
	if got := stdout.String(); got != wantCmds+wantCmds {
		t.Errorf("workflow commands =\n%s\nwant (twice)\n%s", got, wantCmds)
	}
	if n := fake.Count("POST", `/repos/acme/engine/issues/7/comments`); n != 1 {
		t.Errorf("%d comments created, want 1", n)
	}
}

func TestPublishOutsideActions(t *testing.T) {
	env, err := EnvFrom(mapEnv(map[string]string{"GITHUB_TOKEN": testToken}))
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	pub, err := Publish(context.Background(), env, sample, Options{Comment: CommentAlways, Out: &stdout})
	if err != nil || pub.Comment.Action != Skipped || stdout.Len() != 0 {
		t.Errorf("Publish outside Actions = %+v, %v, wrote %q", pub, err, stdout.String())
	}
}

func TestPublishSkipsComment(t *testing.T) {
	fake, api := newFake(t)
	env, _, _ := actionsEnv(t, api)
	noPR, noToken := env, env
	noPR.PR = 0
	noToken.Token = ""
	for name, tc := range map[string]struct {
		env     Env
		comment CommentMode
		reason  string
	}{
		"off":      {env, CommentNever, "turned off"},
		"unset":    {env, "", "turned off"},
		"no PR":    {noPR, CommentAlways, "not for a pull request"},
		"no token": {noToken, CommentOnChange, "no token"},
	} {
		pub, err := Publish(context.Background(), tc.env, sample, Options{Comment: tc.comment})
		if err != nil || pub.Comment.Action != Skipped || !strings.Contains(pub.Comment.Reason, tc.reason) {
			t.Errorf("%s: %+v, %v", name, pub, err)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d API requests, want 0", n)
	}
}

// TestPublishNeverLeaksToken makes the API echo the token back in its error
// message, as a misbehaving proxy might, and checks every output channel.
func TestPublishNeverLeaksToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"message": "Resource not accessible by integration (you sent %s)"}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	env, outFile, summaryFile := actionsEnv(t, srv.URL+"/api/v3")
	var stdout bytes.Buffer
	r := sample
	r.Annotations = append(r.Annotations, Annotation{Level: Notice, Message: "echo " + testToken})
	r.Markdown += "\nan error sample quoting " + testToken + "\n"
	_, err := Publish(context.Background(), env, r, Options{Comment: CommentAlways, Out: &stdout})
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "Resource not accessible") {
		t.Fatalf("err = %v, want the 403", err)
	}
	all := err.Error() + stdout.String() + read(t, outFile) + read(t, summaryFile) + fmt.Sprintf("%+v %#v", env, env)
	if strings.Contains(all, testToken) {
		t.Errorf("token leaked:\n%s", all)
	}
	if !strings.Contains(stdout.String(), "::warning title=perfgate could not comment::") {
		t.Errorf("no warning annotation for the failed comment:\n%s", stdout.String())
	}
}

func TestSetOutputsRefusesInjection(t *testing.T) {
	env, _, _ := actionsEnv(t, "http://127.0.0.1:1") // comments are off: nothing is sent
	for _, bad := range []string{"a\nb", "x_GitHubActionsFileCommandDelimeter_"} {
		r := Report{Profile: "p", Verdict: bad}
		if _, err := Publish(context.Background(), env, r, Options{}); err == nil || !strings.Contains(err.Error(), "output verdict") {
			t.Errorf("verdict %q: err = %v", bad, err)
		}
	}
}

func TestPublishReportsUnwritableFiles(t *testing.T) {
	env, _, _ := actionsEnv(t, "http://127.0.0.1:1") // comments are off: nothing is sent
	dir := t.TempDir()                               // a directory cannot be opened for append
	env.getenv = mapEnv(map[string]string{"GITHUB_OUTPUT": dir, "GITHUB_STEP_SUMMARY": dir})
	_, err := Publish(context.Background(), env, sample, Options{})
	if err == nil || !strings.Contains(err.Error(), "GITHUB_OUTPUT") || !strings.Contains(err.Error(), "GITHUB_STEP_SUMMARY") {
		t.Errorf("err = %v", err)
	}
}
