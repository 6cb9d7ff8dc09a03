package report

import (
	"strings"
	"testing"
)

func TestFit(t *testing.T) {
	mk := func() []*part {
		return []*part{
			{name: "headline", versions: []string{"HEAD\n"}, order: 100},
			{name: "table", versions: []string{strings.Repeat("t", 50) + "\n", "tt\n"}, order: 50},
			{name: "details", versions: []string{strings.Repeat("d", 100) + "\n", ""}, order: 10},
		}
	}
	note := func(names []string) string { return "[" + strings.Join(names, ",") + "]\n" }
	tests := []struct {
		limit int
		want  string
	}{
		{0, "HEAD\n" + strings.Repeat("t", 50) + "\n" + strings.Repeat("d", 100) + "\n"},
		{1000, "HEAD\n" + strings.Repeat("t", 50) + "\n" + strings.Repeat("d", 100) + "\n"},
		// details go first
		{100, "HEAD\n" + strings.Repeat("t", 50) + "\n[details]\n"},
		// then the table shrinks
		{30, "HEAD\ntt\n[details,table]\n"},
	}
	for _, tt := range tests {
		if got := fit(tt.limit, mk(), note); got != tt.want {
			t.Errorf("fit(%d) = %q, want %q", tt.limit, got, tt.want)
		}
	}
	// Nothing left to trim: cut at a line boundary, headline first.
	got := fit(90, []*part{{name: "h", versions: []string{"HEAD\n" + strings.Repeat("x\n", 100)}}}, note)
	if !strings.HasPrefix(got, "HEAD\n") || runeLen(got) > 90 {
		t.Errorf("cut = %q (%d runes)", got, runeLen(got))
	}
}

func TestCutLinesClosesBlocks(t *testing.T) {
	s := "HEAD\n<details>\n```\n" + strings.Repeat("line\n", 500)
	got := cutLines(s, 300)
	if runeLen(got) > 300 {
		t.Errorf("cut is %d runes, want <= 300", runeLen(got))
	}
	if strings.Count(got, "```")%2 != 0 || strings.Count(got, "<details>") != strings.Count(got, "</details>") {
		t.Errorf("cut left a block open:\n%s", got)
	}
}
