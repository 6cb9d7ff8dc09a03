package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// decodeModels reads the body of GET /v1/models: an OpenAI model list
// with at least one model, each with an id (the name requests will carry)
// and, from vLLM, a non-negative max_model_len.
func decodeModels(body []byte) (modelList, error) {
	var m modelList
	if err := json.Unmarshal(body, &m); err != nil {
		return modelList{}, err
	}
	if len(m.Data) == 0 {
		return modelList{}, errors.New("no models listed")
	}
	for i, d := range m.Data {
		if strings.TrimSpace(d.ID) == "" {
			return modelList{}, fmt.Errorf("model %d of the list has no id", i+1)
		}
		if d.MaxModelLen < 0 {
			return modelList{}, fmt.Errorf("model %q: max_model_len %d is negative", d.ID, d.MaxModelLen)
		}
	}
	return m, nil
}

// maxVersion bounds the server version kept from /version: it is a short
// label in result files, fingerprints and reports, not a document.
const maxVersion = 100

// decodeVersion reads the body of GET /version ({"version": "0.11.0"}).
// Anything else (no JSON, no version, a number) gives "": the version is
// informational. Control characters are dropped and the text is cut at
// maxVersion bytes on a character boundary.
func decodeVersion(body []byte) string {
	var v struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	s := strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(v.Version))
	for len(s) > maxVersion {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}
