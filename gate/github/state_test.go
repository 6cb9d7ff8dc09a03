package github

import (
	"strings"
	"testing"
)

func TestStateLine(t *testing.T) {
	a := NewState("regression", []string{"w:b", "w:a", "w:a"})
	if b := NewState("regression", []string{"w:a", "w:b"}); a != b {
		t.Errorf("order or duplicates change the state: %+v vs %+v", a, b)
	}
	if c := NewState("regression", []string{"w:a"}); a == c {
		t.Error("another set of cells gives the same state")
	}
	// The separator keeps "ab"+"c" apart from "a"+"bc".
	if NewState("x", []string{"ab", "c"}) == NewState("x", []string{"a", "bc"}) {
		t.Error("cells are not delimited in the hash")
	}
	if s := NewState("--> <b>", nil); s.Verdict != "unknown" {
		t.Errorf("odd verdict kept: %q", s.Verdict)
	}
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{"report\n\n" + a.Line() + "\n<!-- perfgate:p -->\n", true},
		{"report without a state", false},
		{"<!-- perfgate-state v1 verdict=pass regressed=0123 -->", false},                 // short hash
		{"<!-- perfgate-state v1 verdict=pass regressed=0123456789abcdeF -->", false},     // upper case
		{"<!-- perfgate-state v1 verdict=Pass regressed=0123456789abcdef -->", false},     // verdict shape
		{"<!-- perfgate-state v1 verdict=pass regressed=0123456789abcdef", false},         // unterminated
		{"<!-- perfgate-state v1 verdict=pass regressed=0123456789abcdef x=y -->", false}, // extra field
		{"<!-- perfgate-state v2 verdict=pass regressed=0123456789abcdef -->", false},     // other version
		{"<!-- perfgate-state v1 regressed=0123456789abcdef verdict=pass -->", false},     // order
		{"<!-- perfgate-state v1 verdict=pass regressed=0123456789abcdef -->", true},
	} {
		got, ok := ParseState(tc.body)
		if ok != tc.ok {
			t.Errorf("ParseState(%q) ok = %v, want %v", tc.body, ok, tc.ok)
		}
		if ok && tc.body != got.Line() && !strings.Contains(tc.body, got.Line()) {
			t.Errorf("ParseState(%q) = %+v, whose line is not in the body", tc.body, got)
		}
	}
	// The last line counts: perfgate appends its own after the report,
	// which may quote an older one.
	older := NewState("pass", nil)
	if got, _ := ParseState(older.Line() + "\n" + a.Line()); got != a {
		t.Errorf("ParseState with two lines = %+v, want the last %+v", got, a)
	}
}

// FuzzParseState: the parser never panics, accepts only what Line could
// have written, and reads back every state it accepts unchanged.
func FuzzParseState(f *testing.F) {
	f.Add(NewState("regression", []string{"w:a"}).Line())
	f.Add("x <!-- perfgate-state v1 verdict=pass regressed=0123456789abcdef -->y")
	f.Add("<!-- perfgate-state v1 verdict= regressed= -->")
	f.Add("<!-- perfgate-state v1 ")
	f.Fuzz(func(t *testing.T, body string) {
		st, ok := ParseState(body)
		if !ok {
			if st != (State{}) {
				t.Fatalf("rejected body gave a state %+v", st)
			}
			return
		}
		line := st.Line()
		if !strings.Contains(body, line) {
			t.Fatalf("accepted %+v, but its line %q is not in the body %q", st, line, body)
		}
		if again, ok := ParseState(line); !ok || again != st {
			t.Fatalf("round trip of %q = %+v, %v", line, again, ok)
		}
		if strings.Contains(st.Verdict, "-->") || strings.ContainsAny(st.Verdict+st.Regressed, " <>\n") {
			t.Fatalf("state %+v could break the HTML comment", st)
		}
	})
}
