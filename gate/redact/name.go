package redact

import (
	"strings"
	"unicode"
)

// strongWords mark a secret wherever a word of a name ends in one
// (PGPASSWORD, CLIENTSECRET): nothing in LLM serving is called a password.
var strongWords = map[string]bool{
	"SECRET": true, "SECRETS": true, "PASSWORD": true, "PASSWORDS": true, "PASSWD": true,
	"PASSPHRASE": true, "CREDENTIAL": true, "CREDENTIALS": true, "APIKEY": true,
	"AUTHORIZATION": true, "COOKIE": true,
}

// lastWords mark a secret when the name ends with them (--auth, GITHUB_PAT).
var lastWords = map[string]bool{"AUTH": true, "PASS": true, "PAT": true}

// llmToken are words that, just before a final TOKEN, make it a token of
// text rather than a credential: --time-to-first-token, --ms-per-token,
// --eos-token.
var llmToken = map[string]bool{
	"FIRST": true, "LAST": true, "NEXT": true, "PER": true, "EACH": true, "TO": true,
	"OUTPUT": true, "INPUT": true, "PROMPT": true, "BOS": true, "EOS": true, "PAD": true,
	"STOP": true, "SPECIAL": true, "UNK": true, "SEP": true, "CLS": true, "MASK": true,
	"START": true, "END": true, "IMAGE": true, "AUDIO": true, "VIDEO": true, "THINK": true,
	"THINKING": true, "REASONING": true, "TOOL": true, "DECODE": true, "DECODED": true,
	"PREFILL": true, "GENERATED": true, "SAMPLED": true, "TOTAL": true, "MAX": true,
	"MIN": true, "NUM": true, "MEAN": true, "AVG": true, "SINGLE": true, "NEW": true,
}

// Name reports whether a variable, flag, JSON key or header name says its
// value is a credential. Leading dashes are ignored; the name is split into
// words at every character that is not a letter or digit and at camelCase
// boundaries. It is a secret when
//
//   - any word ends in SECRET(S), PASSWORD(S), PASSWD, PASSPHRASE,
//     CREDENTIAL(S), APIKEY, AUTHORIZATION or COOKIE (PGPASSWORD);
//   - the last word ends in KEY (API_KEY, --hf-apikey, X-Api-Key);
//   - the last word ends in TOKEN, unless the word before it makes it a
//     token of text (FIRST, PER, EOS, OUTPUT, ...): HF_TOKEN and
//     --auth-token are secrets, --time-to-first-token is not, and
//     --inter-token-latency and --max-num-batched-tokens never end in TOKEN;
//   - the last word is AUTH, PASS or PAT (--auth, BASIC_AUTH, GITHUB_PAT),
//     or PWD after another word (MYSQL_PWD; PWD alone is a directory);
//   - it is a GitHub Actions variable with TOKEN among its words
//     (ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_URL).
func Name(name string) bool {
	w := words(name)
	if len(w) == 0 {
		return false
	}
	for _, x := range w {
		if strong(x) {
			return true
		}
	}
	last := w[len(w)-1]
	switch {
	case strings.HasSuffix(last, "KEY"):
		return true
	case strings.HasSuffix(last, "TOKEN"):
		return len(w) == 1 || last != "TOKEN" || !llmToken[w[len(w)-2]]
	case lastWords[last], last == "PWD" && len(w) > 1: // MYSQL_PWD, not the shell's PWD
		return true
	}
	if w[0] == "ACTIONS" {
		for _, x := range w[1:] {
			if x == "TOKEN" {
				return true
			}
		}
	}
	return false
}

// strong reports whether word ends in one of strongWords.
func strong(word string) bool {
	for s := range strongWords {
		if strings.HasSuffix(word, s) {
			return true
		}
	}
	return false
}

// words splits name into upper-case words: "--hfToken" is HF TOKEN,
// "X-API-Key" is X API KEY, "APIKey" is API KEY.
func words(name string) []string {
	var out []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToUpper(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}
