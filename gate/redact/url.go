package redact

import (
	"net/url"
	"strings"
)

// URL returns raw with its user info replaced ("user:pw@" holds a password,
// "TOKEN@" a token) and the values of secret query parameters (api_key,
// token, sig=…) hidden; everything else stays readable. A value that does
// not parse as a URL is hidden whole: it may be a secret pasted into the
// wrong setting.
func URL(raw string) string {
	out, _ := redactURL(raw)
	return out
}

func redactURL(raw string) (string, []string) {
	// A URL redacted before ("http://[redacted]@host", or without a
	// scheme "//[redacted]@host") is not valid syntax; read it with a
	// stand-in user so redacting twice is a no-op.
	const again = "//" + Placeholder + "@"
	redone := strings.Contains(raw, again)
	if redone {
		raw = strings.Replace(raw, again, "//redacted@", 1)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Placeholder, []string{raw}
	}
	var found []string
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Opaque != "" {
		// mailto:x or host:port parsed as scheme:opaque; only shapes apply.
		o, f := text(u.Opaque)
		b.WriteString(o)
		found = append(found, f...)
	} else {
		if u.Host != "" || u.User != nil || strings.HasPrefix(raw, u.Scheme+"://") {
			b.WriteString("//")
		}
		if u.User != nil {
			if !redone {
				ui := u.User.String()
				found = append(found, ui)
				if pw, ok := u.User.Password(); ok {
					found = append(found, pw)
				}
			}
			b.WriteString(Placeholder + "@")
		}
		b.WriteString(u.Host)
		b.WriteString(u.EscapedPath())
	}
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?")
		q, f := redactQuery(u.RawQuery)
		b.WriteString(q)
		found = append(found, f...)
	}
	if u.Fragment != "" {
		b.WriteString("#")
		fr, f := text(u.EscapedFragment())
		b.WriteString(fr)
		found = append(found, f...)
	}
	return b.String(), found
}

// redactQuery hides the values of secret parameters of a raw query,
// keeping the rest byte for byte.
func redactQuery(raw string) (string, []string) {
	var found []string
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if !ok || v == "" {
			continue
		}
		if Name(name) || secretParam[strings.ToLower(name)] {
			if v != Placeholder {
				found = append(found, v)
				if uv, err := url.QueryUnescape(v); err == nil && uv != v {
					found = append(found, uv)
				}
			}
			parts[i] = k + "=" + Placeholder
			continue
		}
		if t, f := text(v); t != v {
			parts[i] = k + "=" + t
			found = append(found, f...)
		}
	}
	return strings.Join(parts, "&"), found
}

// secretParam are query parameter names that carry credentials without
// saying so in words Name knows: the signatures of presigned URLs (Azure's
// sig, S3's X-Amz-Signature) and OAuth's code.
var secretParam = map[string]bool{"sig": true, "signature": true, "x-amz-signature": true, "code": true}
