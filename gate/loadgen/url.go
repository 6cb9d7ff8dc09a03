package loadgen

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/redact"
)

// CheckURL says why raw is not a usable server base URL
// (http(s)://host[:port], optionally ending in /v1), or returns nil. It is
// the one check of a server URL: Runner.New and gate/config both use it, so
// --url, server.url and PERFGATE_SERVER_URL get the same answer. Messages
// show the URL without user info or query, which may hold a password.
func CheckURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("empty URL: want http(s)://host[:port]")
	}
	if !strings.Contains(raw, "://") {
		// url.Parse reads "127.0.0.1:8000" as a bad scheme and
		// "localhost:8000" as scheme "localhost": neither says what is
		// wrong.
		fixed := redact.URL("http://" + raw)
		return fmt.Errorf("%s: missing scheme: write %s", strings.TrimPrefix(fixed, "http://"), fixed)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the raw URL, password and all
		}
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: scheme must be http or https", redact.URL(raw))
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%s: no host", redact.URL(raw))
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%s: port %s: must be 1-65535", redact.URL(raw), p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("%s: empty port after ':'", redact.URL(raw))
	}
	return nil
}
