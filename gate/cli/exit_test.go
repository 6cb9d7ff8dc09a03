package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCodeOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want ExitCode
	}{
		{nil, ExitPass},
		{errors.New("bad flag"), ExitInvalid},
		{&ExitError{Code: ExitRegression}, ExitRegression},
		{fmt.Errorf("wrapped: %w", &ExitError{Code: ExitRunFailed}), ExitRunFailed},
		{exitf(ExitInconclusive, "undecided"), ExitInconclusive},
	}
	for _, c := range cases {
		if got := codeOf(c.err); got != c.want {
			t.Errorf("codeOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestMainUsageErrorIsExit2(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--no-such-flag"}, Streams{Out: &out, Err: &errb})
	if code != ExitInvalid {
		t.Fatalf("exit = %v, want %v", code, ExitInvalid)
	}
	if !strings.HasPrefix(errb.String(), "perfgate: ") {
		t.Fatalf("stderr = %q", errb.String())
	}
}
