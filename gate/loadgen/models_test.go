package loadgen

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestDecodeModels(t *testing.T) {
	for body, want := range map[string]string{
		`{"object":"list","data":[{"id":"m","max_model_len":4096}]}`: "",
		`{"data":[{"id":"a"},{"id":"b"}]}`:                           "",
		`{"data":[]}`:                                                "no models listed",
		`{}`:                                                         "no models listed",
		`{"data":[{"id":"a"},{"id":" "}]}`:                           "model 2 of the list has no id",
		`{"data":[{"id":"a","max_model_len":-1}]}`:                   "negative",
		`<html>`:              "invalid character",
		`{"data":{"id":"a"}}`: "cannot unmarshal",
	} {
		_, err := decodeModels([]byte(body))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("decodeModels(%s) = %v, want %q", body, err, want)
		}
	}
}

func TestDecodeVersion(t *testing.T) {
	for body, want := range map[string]string{
		`{"version":"0.11.0"}`:         "0.11.0",
		`{"version":" 0.11.0\n"}`:      "0.11.0",
		`{"version":"0.1\u001b[31m1"}`: "0.1[31m1",
		`{"version":5}`:                "",
		`not json`:                     "",
		`{"version":"` + strings.Repeat("é", 80) + `"}`: strings.Repeat("é", 50),
	} {
		if got := decodeVersion([]byte(body)); got != want {
			t.Errorf("decodeVersion(%.40s) = %q, want %q", body, got, want)
		}
	}
}

// FuzzModels: the /v1/models and /version readers never panic; an
// accepted model list has at least one model and every model an id; a
// version is short, valid UTF-8 and free of control characters (it reaches
// fingerprints and reports).
func FuzzModels(f *testing.F) {
	f.Add([]byte(`{"object":"list","data":[{"id":"fake-model","max_model_len":4096,"root":"x"}]}`))
	f.Add([]byte(`{"version":"0.11.0"}`))
	f.Add([]byte(`{"data":[{"id":""}]}`))
	f.Add([]byte(`{"data":[{"id":"a","max_model_len":1e99}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if m, err := decodeModels(body); err == nil {
			if len(m.Data) == 0 {
				t.Fatal("accepted an empty list")
			}
			for _, d := range m.Data {
				if strings.TrimSpace(d.ID) == "" || d.MaxModelLen < 0 {
					t.Fatalf("accepted model %+v", d)
				}
			}
		}
		v := decodeVersion(body)
		if len(v) > maxVersion || !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			t.Fatalf("decodeVersion = %q", v)
		}
	})
}
