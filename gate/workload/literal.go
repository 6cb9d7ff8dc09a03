package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Number literals in workload files are plain decimal. YAML 1.1 (which
// yaml.v3 still follows for integers) reads `requests: 010` as octal 8 and
// `0x10` as 16, while `08` becomes the float 8: a frozen workload must mean
// what it says to a reader, so leading zeros and base prefixes are refused
// instead of being read one way or the other. Underscores between digits
// (1_000) are allowed, as YAML allows them.

// styleError is a literal that is a number, but written in a form the
// workload format refuses (leading zero, base prefix): the message says how
// to write it.
type styleError struct{ msg string }

func (e *styleError) Error() string { return e.msg }

// intLiteral parses a decimal integer literal: an optional sign, then digits
// with optional single underscores between them, without leading zeros.
func intLiteral(text string) (int64, error) {
	digits, err := decimalDigits(text)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is out of range", text)
	}
	return v, nil
}

// decimalDigits checks an integer literal and returns it without
// underscores and without a leading '+'.
func decimalDigits(text string) (string, error) {
	s := text
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	if len(s) >= 2 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		return "", &styleError{fmt.Sprintf("%s: write numbers in decimal, without a base prefix", text)}
	}
	if s == "" {
		return "", errors.New("empty number")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '_' && i > 0 && i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]):
		default:
			return "", fmt.Errorf("%s is not a decimal number", text)
		}
	}
	d := b.String()
	if len(d) > 1 && d[0] == '0' {
		plain := strings.TrimLeft(d, "0")
		if plain == "" {
			plain = "0"
		}
		return "", &styleError{fmt.Sprintf("%s has a leading zero (YAML 1.1 reads 010 as octal 8); write %s%s", text, sign, plain)}
	}
	return sign + d, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// floatLiteral checks the integer part of a decimal float literal with the
// rules of intLiteral (no leading zeros, no base prefix), then parses it.
// "0.5", "1e-3", "2.5", "1_000.5" pass; "010", "00.5", "0x1p4" do not.
func floatLiteral(text string) (float64, error) {
	mant := text
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		mant = mant[:i]
	}
	intPart := mant
	if i := strings.IndexByte(intPart, '.'); i >= 0 {
		intPart = intPart[:i]
	}
	if t := strings.TrimLeft(intPart, "+-"); t != "" {
		if _, err := decimalDigits(intPart); err != nil {
			return 0, err
		}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a decimal number", text)
	}
	return v, nil
}
