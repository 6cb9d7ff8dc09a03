package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitArgv(t *testing.T) {
	tests := []struct {
		in      string
		want    Argv
		wantErr string
	}{
		{in: "", want: nil},
		{in: "  vllm serve  m  ", want: Argv{"vllm", "serve", "m"}},
		{in: `a 'b c' "d e"`, want: Argv{"a", "b c", "d e"}},
		// Empty quoted words are arguments (e.g. --chat-template "").
		{in: `x '' ""`, want: Argv{"x", "", ""}},
		// Adjacent quoted and unquoted parts join into one word.
		{in: `--arg='{"a": 1}'x`, want: Argv{`--arg={"a": 1}x`}},
		{in: `"a \"q\" \\ \$HOME \n"`, want: Argv{`a "q" \ $HOME \n`}},
		{in: `a\ b c\'d`, want: Argv{"a b", "c'd"}},
		// No expansion of variables or globs.
		{in: "echo $HOME *.yaml ~", want: Argv{"echo", "$HOME", "*.yaml", "~"}},
		{in: "a \\\nb", want: Argv{"a", "b"}},
		{in: "vllm serve m > log", wantErr: `unquoted '>'`},
		{in: "a; rm -rf /", wantErr: `unquoted ';'`},
		{in: "a 'b", wantErr: "unterminated single quote at byte 2"},
		{in: `a "b`, wantErr: "unterminated double quote at byte 2"},
		{in: `a \`, wantErr: "unfinished backslash"},
	}
	for _, tt := range tests {
		got, err := SplitArgv(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SplitArgv(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitArgv(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestArgvStringRoundTrip(t *testing.T) {
	for _, a := range []Argv{
		{"vllm", "serve", "m", "--port", "8000"},
		{"x", "", "a b", "it's", `"q"`, "$HOME", "a|b", "--kv={\"a\":1}"},
	} {
		back, err := SplitArgv(a.String())
		if err != nil || !reflect.DeepEqual(back, a) {
			t.Errorf("SplitArgv(%q) = %q, %v; want %q", a.String(), back, err, a)
		}
	}
}

// FuzzSplitArgv checks that the splitter never panics and that whatever it
// accepts survives a String/SplitArgv round trip.
func FuzzSplitArgv(f *testing.F) {
	for _, s := range []string{"vllm serve m", `a 'b c' "d \" e"`, `a\ b`, "x ''", `"`, "a;b", "\\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := SplitArgv(s)
		if err != nil {
			return
		}
		back, err := SplitArgv(a.String())
		if err != nil {
			t.Fatalf("SplitArgv(%q) of String of %q: %v", a.String(), a, err)
		}
		if len(a) == 0 && len(back) == 0 {
			return
		}
		if !reflect.DeepEqual(back, a) {
			t.Fatalf("round trip of %q: %q -> %q -> %q", s, a, a.String(), back)
		}
	})
}
