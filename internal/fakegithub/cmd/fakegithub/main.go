// Command fakegithub serves the fake GitHub comments API of package
// fakegithub on a loopback address, for .ci/act-selftest.sh: act points the
// Action's GITHUB_API_URL at it and the script reads /_fake/summary to see
// which comments were created and edited.
//
//	fakegithub -addr 127.0.0.1:0 -token T -repo owner/name -url-file F
//
// It writes its API root URL to -url-file once listening, and exits on
// SIGINT/SIGTERM or after -timeout, so a failed script never leaves it
// running for long.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/internal/fakegithub"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakegithub:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	token := flag.String("token", "", "the only accepted bearer token (required)")
	repo := flag.String("repo", "", "owner/name of the only repository (required)")
	prefix := flag.String("prefix", "/api/v3", "API root path")
	urlFile := flag.String("url-file", "", "write the API root URL here once listening")
	timeout := flag.Duration("timeout", 15*time.Minute, "exit after this long")
	flag.Parse()
	owner, name, ok := strings.Cut(*repo, "/")
	if *token == "" || !ok {
		return errors.New("-token and -repo owner/name are required")
	}
	fake := &fakegithub.Server{Prefix: *prefix, Token: *token, Owner: owner, Repo: name}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", fake)
	mux.HandleFunc("/_fake/summary", func(w http.ResponseWriter, r *http.Request) {
		fakegithub.WriteSummary(w, r, fake)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), *prefix)
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o644); err != nil {
			return err
		}
	}
	fmt.Println(url)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	go func() {
		<-ctx.Done()
		shut, done := context.WithTimeout(context.Background(), 2*time.Second)
		defer done()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
