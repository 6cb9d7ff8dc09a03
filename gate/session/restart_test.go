package session

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRunStartsRestarts: three starts of a launched server, each its own
// ready server at its own URL (the previous one stopped), one result
// continued across them.
func TestRunStartsRestarts(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	environ, lookup := env()
	var stderr bytes.Buffer
	m := manifests(t)[0]
	var urls []string
	err = RunStarts(context.Background(), Options{
		Command: []string{exe, "-test.run=^$"}, Env: []string{"SESSION_TEST_SERVE=1"},
		ReadyTimeout: time.Minute, LookupEnv: lookup, Environ: environ, Err: &stderr,
	}, func(ctx context.Context, s *Session, restart Restart) error {
		res, err := s.RunCell(ctx, m, 1, nil)
		if err != nil {
			return err
		}
		urls = append(urls, s.URL)
		for k := 2; k <= 3; k++ {
			if ctx, s, err = restart(); err != nil {
				return err
			}
			s.Track(res)
			if err := s.Trials().RunTrials(ctx, m, res, 1); err != nil {
				return err
			}
			urls = append(urls, s.URL)
		}
		if len(res.Trials) != 3 || !res.Complete {
			t.Errorf("result over three starts: %d trials, complete %v", len(res.Trials), res.Complete)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("RunStarts: %v\nstderr:\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "starting the server"); n != 3 {
		t.Errorf("%d server starts, want 3:\n%s", n, stderr.String())
	}
	if len(urls) != 3 || urls[0] == urls[1] || urls[1] == urls[2] {
		t.Errorf("URLs of the starts %v: want three servers on their own ports", urls)
	}
}

// TestRunStartsAttached: an attached server cannot be restarted; the
// error says what would (a launched server).
func TestRunStartsAttached(t *testing.T) {
	t.Parallel()
	srv := attachedSim(t)
	environ, lookup := env()
	err := RunStarts(context.Background(), Options{URL: srv.URL, ReadyTimeout: 10 * time.Second, LookupEnv: lookup, Environ: environ},
		func(ctx context.Context, s *Session, restart Restart) error {
			_, _, err := restart()
			return err
		})
	if !errors.Is(err, ErrAttached) || !strings.Contains(err.Error(), "server.command") {
		t.Fatalf("restart of an attached server: %v", err)
	}
}
