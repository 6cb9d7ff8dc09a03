package config

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/redact"
)

// Printable returns a copy of c that is safe to print, with every secret
// hidden by gate/redact: the GitHub token, URL user info and secret query
// parameters, the values of secret server variables, and secrets on the
// server's command line (secret flags, credential-shaped values, secrets
// inside values). Settings that only look like secrets, such as
// --max-num-batched-tokens 8192, stay visible.
func (c Config) Printable() Config {
	r := c
	if r.GitHub.Token != "" {
		r.GitHub.Token = redact.Placeholder
	}
	if r.Server.URL != "" {
		r.Server.URL = redact.URL(r.Server.URL)
	}
	r.Server.Env = redact.Env(c.Server.Env)
	if c.Server.Command != nil {
		r.Server.Command = Argv(redact.Argv(c.Server.Command))
	}
	r.AB.A, r.AB.B = c.AB.A.printable(), c.AB.B.printable()
	return r
}

// printable is the arm with its URL, environment and command lines
// hidden as server.*'s are.
func (a ABArm) printable() ABArm {
	r := a
	if r.URL != "" {
		r.URL = redact.URL(r.URL)
	}
	r.Env = redact.Env(a.Env)
	if a.Command != nil {
		r.Command = Argv(redact.Argv(a.Command))
	}
	if a.Args != nil {
		r.Args = Argv(redact.Argv(a.Args))
	}
	return r
}

// Print writes l's configuration, redacted, as perfgate.yaml-shaped YAML.
// Every value not at its default carries a comment saying where it was set.
func Print(w io.Writer, l *Loaded) error {
	cfg := l.Config.Printable()
	var header strings.Builder
	header.WriteString("effective perfgate configuration (secrets redacted)\n")
	if l.File != "" {
		fmt.Fprintf(&header, "file: %s\n", l.File)
	} else {
		header.WriteString("file: none\n")
	}
	for _, warn := range l.Warnings {
		fmt.Fprintf(&header, "warning: %s\n", warn)
	}
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: strings.TrimRight(header.String(), "\n")}
	sections := map[string]*yaml.Node{"": root}
	val := reflect.ValueOf(cfg)
	for _, s := range schema {
		parent := sections[parentKey(s.key)]
		keyNode := &yaml.Node{Kind: yaml.ScalarNode, Value: lastSegment(s.key)}
		var valNode *yaml.Node
		if s.kind == kindSection {
			valNode = &yaml.Node{Kind: yaml.MappingNode}
			sections[s.key] = valNode
		} else {
			valNode = encodeValue(val.FieldByIndex(s.index))
			if src, ok := l.Sources[s.key]; ok {
				keyNode.LineComment = src
			}
		}
		parent.Content = append(parent.Content, keyNode, valNode)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	return enc.Close()
}

func parentKey(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return ""
}

func lastSegment(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }

func encodeValue(v reflect.Value) *yaml.Node {
	scalar := func(s, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s, Tag: tag} }
	if v.Type() == durationType {
		return scalar(time.Duration(v.Int()).String(), "!!str")
	}
	switch v.Kind() {
	case reflect.String:
		return scalar(v.String(), "!!str")
	case reflect.Int, reflect.Int64:
		return scalar(strconv.FormatInt(v.Int(), 10), "!!int")
	case reflect.Float64:
		return scalar(plainFloat(v.Float()), "")
	case reflect.Bool:
		return scalar(strconv.FormatBool(v.Bool()), "!!bool")
	case reflect.Slice:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for i := 0; i < v.Len(); i++ {
			n.Content = append(n.Content, scalar(v.Index(i).String(), "!!str"))
		}
		return n
	case reflect.Map:
		n := &yaml.Node{Kind: yaml.MappingNode}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			n.Content = append(n.Content, scalar(k.String(), "!!str"),
				scalar(plainFloat(v.MapIndex(k).Float()), ""))
		}
		return n
	}
	return scalar(fmt.Sprint(v.Interface()), "!!str")
}

// plainFloat is a number as perfgate.yaml would hold it, untagged: a
// whole one such as 10 reads as an integer in YAML, and the yaml encoder
// tagged it "!!float 10", which no one writes; the loader takes either.
func plainFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Value returns the text form of one setting of l, redacted like Print:
// a list or command is one item per line, a map "id=value" per line. It is
// what `perfgate config --get KEY` prints for scripts such as action.yml.
func Value(l *Loaded, key string) (string, error) {
	if _, old := renamed[key]; old {
		return "", fmt.Errorf("setting %q: %s", key, renamedMsg(key))
	}
	s, ok := schemaByKey[key]
	if !ok || s.kind == kindSection {
		msg := fmt.Sprintf("unknown setting %q", key)
		if hint := suggest(key); hint != "" && schemaByKey[hint].kind != kindSection {
			msg += fmt.Sprintf(" (did you mean %q?)", hint)
		}
		return "", fmt.Errorf("%s", msg)
	}
	v := reflect.ValueOf(l.Config.Printable()).FieldByIndex(s.index)
	n := encodeValue(v)
	switch n.Kind {
	case yaml.SequenceNode:
		var lines []string
		for _, item := range n.Content {
			lines = append(lines, item.Value)
		}
		return strings.Join(lines, "\n"), nil
	case yaml.MappingNode:
		var lines []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			lines = append(lines, n.Content[i].Value+"="+n.Content[i+1].Value)
		}
		return strings.Join(lines, "\n"), nil
	}
	return n.Value, nil
}
