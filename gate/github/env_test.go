package github

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mapEnv returns a getenv over m.
func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeEvent(t *testing.T, payload string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEnvFrom(t *testing.T) {
	base := func(event, payload string) map[string]string {
		m := map[string]string{
			"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/engine", "GITHUB_EVENT_NAME": event,
			"GITHUB_SHA": "mergesha", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "42",
		}
		if payload != "" {
			m["GITHUB_EVENT_PATH"] = writeEvent(t, payload)
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantPR  int
		wantSHA string
		wantAPI string
		wantTok Token
		wantErr string
	}{
		{name: "pull_request", env: base("pull_request", `{"number": 17, "pull_request": {"number": 17, "head": {"sha": "headsha"}}}`),
			wantPR: 17, wantSHA: "headsha", wantAPI: DefaultAPIURL},
		{name: "pull_request_target", env: base("pull_request_target", `{"pull_request": {"number": 5, "head": {"sha": "h"}}}`),
			wantPR: 5, wantSHA: "h", wantAPI: DefaultAPIURL},
		{name: "comment on a PR", env: base("issue_comment", `{"issue": {"number": 9, "pull_request": {"url": "x"}}}`),
			wantPR: 9, wantSHA: "mergesha", wantAPI: DefaultAPIURL},
		{name: "comment on an issue is not a PR", env: base("issue_comment", `{"issue": {"number": 9}}`),
			wantSHA: "mergesha", wantAPI: DefaultAPIURL},
		{name: "push", env: base("push", `{"ref": "refs/heads/main"}`), wantSHA: "mergesha", wantAPI: DefaultAPIURL},
		{name: "enterprise API and token order", env: func() map[string]string {
			m := base("push", "")
			m["GITHUB_API_URL"] = "https://ghe.example.com/api/v3/"
			m["INPUT_GITHUB-TOKEN"] = " from-input "
			m["GITHUB_TOKEN"] = "from-env"
			return m
		}(), wantSHA: "mergesha", wantAPI: "https://ghe.example.com/api/v3", wantTok: "from-input"},
		{name: "GITHUB_TOKEN fallback", env: func() map[string]string {
			m := base("push", "")
			m["GITHUB_TOKEN"] = "from-env"
			return m
		}(), wantSHA: "mergesha", wantAPI: DefaultAPIURL, wantTok: "from-env"},
		{name: "bad repository", env: func() map[string]string {
			m := base("push", "")
			m["GITHUB_REPOSITORY"] = "justname"
			return m
		}(), wantErr: `GITHUB_REPOSITORY "justname"`},
		{name: "bad payload", env: base("pull_request", `{nope`), wantErr: "not a JSON event payload"},
		{name: "missing payload file", env: func() map[string]string {
			m := base("pull_request", "")
			m["GITHUB_EVENT_PATH"] = "/nonexistent/event.json"
			return m
		}(), wantErr: "GITHUB_EVENT_PATH"},
		{name: "API URL with password", env: func() map[string]string {
			m := base("push", "")
			m["GITHUB_API_URL"] = "https://u:hunter2@ghe.example.com/api/v3"
			return m
		}(), wantErr: "without user info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := EnvFrom(mapEnv(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("error = %v, want %q (and no password)", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !e.Actions || e.Owner != "acme" || e.Repo != "engine" || e.PR != tt.wantPR || e.SHA != tt.wantSHA ||
				e.APIURL != tt.wantAPI || e.Token != tt.wantTok || e.RunURL != "https://github.com/acme/engine/actions/runs/42" {
				t.Errorf("EnvFrom = %+v", e)
			}
		})
	}
}

func TestEnvFromOutsideActions(t *testing.T) {
	e, err := EnvFrom(mapEnv(map[string]string{"GITHUB_REPOSITORY": "garbage"}))
	if err != nil || e.Actions || e.APIURL != DefaultAPIURL {
		t.Errorf("EnvFrom outside Actions = %+v, %v", e, err)
	}
}

func TestTokenNeverFormats(t *testing.T) {
	tok := Token("ghp_verysecret")
	e := Env{Token: tok}
	js, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		fmt.Sprint(tok), fmt.Sprintf("%s %v %q %x %+v %#v", tok, tok, tok, tok, e, e), string(js),
	} {
		if strings.Contains(s, "verysecret") || strings.Contains(s, fmt.Sprintf("%x", "ghp_verysecret")) {
			t.Errorf("token leaks in %q", s)
		}
	}
	if tok.Reveal() != "ghp_verysecret" {
		t.Error("Reveal lost the token")
	}
}

// FuzzReadEvent feeds arbitrary payloads to the event parser: it must not
// panic, and whatever it accepts yields a non-negative PR number.
func FuzzReadEvent(f *testing.F) {
	for _, s := range []string{
		`{"pull_request": {"number": 17, "head": {"sha": "h"}}}`,
		`{"number": 3, "pull_request": {}}`,
		`{"issue": {"number": 9, "pull_request": {"url": "x"}}}`,
		`{"issue": {"number": 9}}`, `[]`, `null`, `{"pull_request": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var e Env
		if err := e.readEvent(data); err != nil {
			return
		}
		if e.PR < 0 {
			t.Fatalf("PR %d from %q", e.PR, data)
		}
	})
}
