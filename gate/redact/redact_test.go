package redact

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// Realistic-looking credentials, long enough for the shape rules.
const (
	ghs    = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
	openai = "sk-proj-Abc123Def456Ghi789Jkl0"
	hf     = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
)

func TestName(t *testing.T) {
	tests := []struct {
		name   string
		secret bool
	}{
		// Credentials by name.
		{"--api-key", true},
		{"api_key", true},
		{"apiKey", true},
		{"APIKEY", true},
		{"OPENAI_API_KEY", true},
		{"PERFGATE_API_KEY", true},
		{"--hf-token", true},
		{"HF_TOKEN", true},
		{"HUGGING_FACE_HUB_TOKEN", true},
		{"GITHUB_TOKEN", true},
		{"GH_TOKEN", true},
		{"ACTIONS_RUNTIME_TOKEN", true},
		{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", true},
		{"ACTIONS_ID_TOKEN_REQUEST_URL", true}, // ACTIONS_*TOKEN*
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_SESSION_TOKEN", true},
		{"NCCL_IB_PASSWORD", true},
		{"PGPASSWORD", true},
		{"MYSQL_PWD", true},
		{"DB_PASSWD", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"--auth", true},
		{"--auth-token", true},
		{"BASIC_AUTH", true},
		{"OAUTH", false}, // a word alone, not a credential's name
		{"VLLM_TOKEN_BUDGET", false},
		{"GITHUB_PAT", true},
		{"Authorization", true},
		{"Proxy-Authorization", true},
		{"X-Api-Key", true},
		{"x-auth-token", true},
		{"Cookie", true},
		{"--ssl-keyfile-password", true},
		{"token", true},
		{"accessToken", true},
		{"client_secret", true},
		// Look-alikes from LLM serving that must stay visible.
		{"--max-num-batched-tokens", false},
		{"--time-to-first-token", false},
		{"--inter-token-latency", false},
		{"max_tokens", false},
		{"maxTokens", false},
		{"max_completion_tokens", false},
		{"--max-tokens", false},
		{"--tokenizer", false},
		{"--tokenizer-mode", false},
		{"--skip-tokenizer-init", false},
		{"TOKENIZERS_PARALLELISM", false},
		{"--eos-token", false},
		{"--ms-per-token", false},
		{"first_token", false},
		{"--ssl-keyfile", false},
		{"--kv-cache-dtype", false},
		{"--enable-prefix-caching", false},
		{"VLLM_ATTENTION_BACKEND", false},
		{"NCCL_P2P_DISABLE", false},
		{"PWD", false},
		{"", false},
		{"--", false},
	}
	for _, tt := range tests {
		if got := Name(tt.name); got != tt.secret {
			t.Errorf("Name(%q) = %v, want %v", tt.name, got, tt.secret)
		}
	}
}

func TestArgv(t *testing.T) {
	P := Placeholder
	tests := []struct {
		in, want []string
		secrets  []string // what ArgvSecrets reports
	}{
		// Long flags, both spellings.
		{[]string{"vllm", "serve", "m", "--api-key", "hunter22"}, []string{"vllm", "serve", "m", "--api-key", P}, []string{"hunter22"}},
		{[]string{"--api-key=hunter22", "--port", "8000"}, []string{"--api-key=" + P, "--port", "8000"}, []string{"hunter22"}},
		{[]string{"--auth", "alice:pw1234"}, []string{"--auth", P}, []string{"alice:pw1234"}},
		{[]string{"--hf-token", hf}, []string{"--hf-token", P}, []string{hf}},
		// A secret flag without a value does not eat the next flag.
		{[]string{"--api-key", "--port", "8000"}, []string{"--api-key", "--port", "8000"}, nil},
		{[]string{"--api-key="}, []string{"--api-key="}, nil},
		// Short flags say nothing; the value's shape does.
		{[]string{"client", "-k", openai, "-n", "5"}, []string{"client", "-k", P, "-n", "5"}, []string{openai}},
		{[]string{"-H", "Authorization: Bearer hunter2hunter2"}, []string{"-H", "Authorization: Bearer " + P}, []string{"hunter2hunter2"}},
		// Secrets inside values.
		{[]string{"env", "VLLM_EXTRA=--api-key sk-abc hunter22", "vllm"}, []string{"env", "VLLM_EXTRA=--api-key " + P + " hunter22", "vllm"}, []string{"sk-abc"}},
		{[]string{"env", "HF_TOKEN=abc123xyz", "vllm"}, []string{"env", "HF_TOKEN=" + P, "vllm"}, []string{"abc123xyz"}},
		{[]string{"bash", "-c", "vllm serve m --api-key hunter22  --port 8000"}, []string{"bash", "-c", "vllm serve m --api-key " + P + "  --port 8000"}, []string{"hunter22"}},
		{[]string{"--extra=--hf-token=abc123xyz"}, []string{"--extra=--hf-token=" + P}, []string{"abc123xyz"}},
		{[]string{"--served-model-name", "tok-" + ghs}, []string{"--served-model-name", "tok-" + P}, []string{ghs}},
		// URLs: user info and secret query parameters.
		{[]string{"--url", "http://user:pw123456@127.0.0.1:8000/v1"}, []string{"--url", "http://" + P + "@127.0.0.1:8000/v1"}, []string{"user:pw123456", "pw123456"}},
		{[]string{"--download", "https://h.example/m?api_key=k123456&rev=main"}, []string{"--download", "https://h.example/m?api_key=" + P + "&rev=main"}, []string{"k123456"}},
		// Look-alikes stay visible.
		{[]string{"vllm", "serve", "m", "--max-num-batched-tokens", "8192", "--max-model-len=4096"}, []string{"vllm", "serve", "m", "--max-num-batched-tokens", "8192", "--max-model-len=4096"}, nil},
		{[]string{"perfgate", "sim", "--time-to-first-token", "50ms", "--inter-token-latency", "10ms"}, []string{"perfgate", "sim", "--time-to-first-token", "50ms", "--inter-token-latency", "10ms"}, nil},
		{[]string{"--time-to-first-token=50ms", "--tokenizer", "Qwen/Qwen3-8B", "--ssl-keyfile", "/k.pem"}, []string{"--time-to-first-token=50ms", "--tokenizer", "Qwen/Qwen3-8B", "--ssl-keyfile", "/k.pem"}, nil},
		{[]string{"--override", "max_tokens=64", "-5"}, []string{"--override", "max_tokens=64", "-5"}, nil},
		{[]string{"pip", "install", "scikit-learn", "hf_transfer", "task-abcdefghijklmnopqrstuvwxyz"}, []string{"pip", "install", "scikit-learn", "hf_transfer", "task-abcdefghijklmnopqrstuvwxyz"}, nil},
		// Already redacted: a no-op.
		{[]string{"--api-key", P, "--url", "http://" + P + "@h:1/", "X=--api-key " + P}, []string{"--api-key", P, "--url", "http://" + P + "@h:1/", "X=--api-key " + P}, nil},
		// A scheme-less URL redacted before is read back, not hidden whole
		// (issue 20, FuzzArgv's "//0@0://").
		{[]string{"//0@0://"}, []string{"//" + P + "@0://"}, []string{"0"}},
		{nil, nil, nil},
	}
	for _, tt := range tests {
		got := Argv(tt.in)
		if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") || (got == nil) != (tt.want == nil) {
			t.Errorf("Argv(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if s := ArgvSecrets(tt.in); strings.Join(s, "\x00") != strings.Join(tt.secrets, "\x00") {
			t.Errorf("ArgvSecrets(%q) = %q, want %q", tt.in, s, tt.secrets)
		}
		if again := Argv(got); strings.Join(again, "\x00") != strings.Join(got, "\x00") {
			t.Errorf("Argv is not idempotent on %q: %q", got, again)
		}
	}
}

func TestURL(t *testing.T) {
	P := Placeholder
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
		{"https://user:secret@host:8443/v1?x=1", "https://" + P + "@host:8443/v1?x=1"},
		{"https://" + ghs + "@github.com/acme/engine.git", "https://" + P + "@github.com/acme/engine.git"},
		{"http://h/p?token=abc&model=qwen&sig=zzz", "http://h/p?token=" + P + "&model=qwen&sig=" + P},
		{"http://h/p?X-Amz-Signature=abc&X-Amz-Credential=AKIAXXXX", "http://h/p?X-Amz-Signature=" + P + "&X-Amz-Credential=" + P},
		{"http://h/p?max_tokens=64&time_to_first_token=50ms", "http://h/p?max_tokens=64&time_to_first_token=50ms"},
		{"http://h/p?q=" + openai, "http://h/p?q=" + P},
		{"http://[::1]:8000/v1#frag", "http://[::1]:8000/v1#frag"},
		{"localhost:8000", "localhost:8000"},
		{"http://bad host:1\x7f", P}, // unparseable: may be anything
		{"http://" + P + "@h:1/", "http://" + P + "@h:1/"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEnv(t *testing.T) {
	P := Placeholder
	in := []string{"HF_TOKEN=" + hf, "NCCL_P2P_DISABLE=1", "VLLM_EXTRA=--api-key hunter22", "PWD=/home/runner", "bare-secret-value", "EMPTY_TOKEN="}
	want := []string{"HF_TOKEN=" + P, "NCCL_P2P_DISABLE=1", "VLLM_EXTRA=--api-key " + P, "PWD=/home/runner", P, "EMPTY_TOKEN="}
	if got := Env(in); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Env\n got %q\nwant %q", got, want)
	}
	if got := EnvSecrets(in); strings.Join(got, " ") != hf+" hunter22" {
		t.Errorf("EnvSecrets = %q", got)
	}
}

func TestText(t *testing.T) {
	P := Placeholder
	tests := []struct{ in, want string }{
		{"GITHUB_TOKEN=abcdef123 HOME=/root", "GITHUB_TOKEN=" + P + " HOME=/root"},
		{"args: Namespace(port=8000, api_key='hunter22', model='m')", "args: Namespace(port=8000, api_key='" + P + "', model='m')"},
		{`{"api_key": "hunter22", "max_tokens": 64}`, `{"api_key": "` + P + `", "max_tokens": 64}`},
		{"non-default args: {'api_key': ['hunter22']}", "non-default args: {'api_key': ['" + P + "']}"},
		{"Authorization: Bearer abcdefgh1234", "Authorization: Bearer " + P},
		{"authorization: token abcdefgh1234", "authorization: token " + P},
		{"curl -H 'X-Api-Key: abcdefgh'", "curl -H 'X-Api-Key: " + P + "'"},
		{"password: hunter22", "password: " + P},
		{"token " + ghs + " leaked", "token " + P + " leaked"},
		{"fetching https://bob:pw123456@hub.example/x", "fetching https://" + P + "@hub.example/x"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk", "jwt " + P},
		// Measurements and knobs stay.
		{"Time to first token: 50ms, inter-token latency 10ms", "Time to first token: 50ms, inter-token latency 10ms"},
		{"first token: 50ms", "first token: 50ms"},
		{`{"api_key":"hunter22"}`, `{"api_key":"` + P + `"}`},
		{"workloads/command-secret-env.yaml:7: command.env: HF_TOKEN looks like a secret", "workloads/command-secret-env.yaml:7: command.env: HF_TOKEN looks like a secret"},
		{"my-secret-run.yaml: bad key", "my-secret-run.yaml: bad key"},
		{"api_key:value-without-space", "api_key:value-without-space"},
		{"max_num_batched_tokens=8192 time_to_first_token=50ms", "max_num_batched_tokens=8192 time_to_first_token=50ms"},
		{"INFO: Uvicorn running on http://0.0.0.0:8000", "INFO: Uvicorn running on http://0.0.0.0:8000"},
		{"pip install scikit-learn hf_transfer", "pip install scikit-learn hf_transfer"},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if got := Text(Text(tt.in)); got != Text(tt.in) {
			t.Errorf("Text is not idempotent on %q: %q", tt.in, got)
		}
	}
}

func TestScrubber(t *testing.T) {
	env := []string{"GITHUB_TOKEN=ghs_short1", "ACTIONS_RUNTIME_TOKEN=rt-value-1", "PERFGATE_API_KEY=key-value-1",
		"OPENAI_API_KEY=abc", "HOME=/home/runner", "VLLM_SLEEP=50ms"}
	argv := []string{"sim", "--time-to-first-token", "50ms", "--auth", "pass-value-1", "--api-key", "true"}
	s := ForProcess(env, argv)
	log := "env: GITHUB_TOKEN=ghs_short1\nruntime rt-value-1 key key-value-1 auth pass-value-1 " +
		"url-encoded " + "pass%2Dvalue%2D1" + "\nTTFT 50ms, abc is short, true\n"
	got := s.String(log)
	for _, secret := range []string{"ghs_short1", "rt-value-1", "key-value-1", "pass-value-1"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s survived: %q", secret, got)
		}
	}
	// Short values and non-secrets are not searched for.
	for _, keep := range []string{"TTFT 50ms", "abc is short, true", "/home/runner"} {
		if log := s.String(keep); log != keep {
			t.Errorf("String(%q) = %q", keep, log)
		}
	}
	if (*Scrubber)(nil).String("x "+ghs) != "x "+Placeholder {
		t.Error("the nil Scrubber must still hide credential shapes")
	}

	base := fs.ErrNotExist
	err := s.Error(errors.Join(errors.New("open key-value-1"), base))
	if strings.Contains(err.Error(), "key-value-1") || !errors.Is(err, base) {
		t.Errorf("Error = %v (Is ErrNotExist %v)", err, errors.Is(err, base))
	}
	if s.Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
	var b strings.Builder
	w := s.Writer(&b)
	if n, err := w.Write([]byte("a rt-value-1 b")); n != 14 || err != nil {
		t.Errorf("Write = %d, %v", n, err)
	}
	if b.String() != "a "+Placeholder+" b" {
		t.Errorf("Writer wrote %q", b.String())
	}
}

func FuzzArgv(f *testing.F) {
	f.Add("vllm serve m --api-key hunter22 --url http://u:p@h/?token=x VLLM_EXTRA=--hf-token=abc")
	f.Add("-k " + openai + " --time-to-first-token 50ms")
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Split(s, " ")
		red := Argv(argv)
		if len(red) != len(argv) {
			t.Fatalf("Argv changed the length: %q -> %q", argv, red)
		}
		if again := Argv(red); strings.Join(again, " ") != strings.Join(red, " ") {
			t.Fatalf("not idempotent: %q -> %q -> %q", argv, red, again)
		}
		for _, v := range ArgvSecrets(argv) {
			if len(v) >= MinScrubLen && strings.Contains(strings.Join(red, " "), v) && !strings.Contains(Placeholder, v) {
				// A found secret may legitimately remain where it is
				// also a non-secret word elsewhere; only flag values
				// that nothing else on the line explains.
				if strings.Count(s, v) == 1 {
					t.Fatalf("secret %q survives in %q", v, red)
				}
			}
		}
		_ = Text(s)
		_ = URL(s)
	})
}

func FuzzText(f *testing.F) {
	f.Add("GITHUB_TOKEN=abc123 Authorization: Bearer abcdefgh1234 https://u:p@h/?token=x first token: 50ms")
	f.Add(`{"api_key":"x","max_tokens":5} password: hunter22 ` + ghs)
	f.Fuzz(func(t *testing.T, s string) {
		once := Text(s)
		if twice := Text(once); twice != once {
			t.Fatalf("Text is not idempotent:\n%q\n%q\n%q", s, once, twice)
		}
		if strings.Contains(once, ghs) {
			t.Fatalf("a GitHub token survived: %q", once)
		}
	})
}
