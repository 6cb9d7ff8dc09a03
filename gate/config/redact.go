package config

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/result"
)

// Redacted is the placeholder that replaces secrets in printed output.
const Redacted = "[redacted]"

// secretName matches names of settings, variables and flags that usually
// hold credentials: HF_TOKEN, OPENAI_API_KEY, --api-key, AWS_SECRET_ACCESS_KEY.
var secretName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|api[-_]?key|credential|auth|private[-_]?key|access[-_]?key)`)

// Redacted returns a copy of c that is safe to print: the GitHub token,
// user info and query strings in URLs, values of secret-looking server
// environment variables, and values of secret-looking command-line options
// are replaced by Redacted.
func (c Config) Redacted() Config {
	r := c
	if r.GitHub.Token != "" {
		r.GitHub.Token = Redacted
	}
	if r.Server.URL != "" {
		r.Server.URL = result.RedactURL(r.Server.URL)
	}
	r.Server.Env = make([]string, len(c.Server.Env))
	for i, e := range c.Server.Env {
		name, _, ok := strings.Cut(e, "=")
		if !ok {
			r.Server.Env[i] = Redacted // malformed: may be a bare secret
		} else if secretName.MatchString(name) {
			r.Server.Env[i] = name + "=" + Redacted
		} else {
			r.Server.Env[i] = e
		}
	}
	if c.Server.Env == nil {
		r.Server.Env = nil
	}
	r.Server.Command = redactArgv(c.Server.Command)
	return r
}

// redactArgv hides the values of secret-looking options (--api-key X,
// --api-key=X, --hf-token X) and user info in URL arguments.
func redactArgv(a Argv) Argv {
	if a == nil {
		return nil
	}
	out := make(Argv, len(a))
	hideNext := false
	for i, arg := range a {
		switch {
		case hideNext:
			out[i] = Redacted
			hideNext = false
		case strings.HasPrefix(arg, "-") && secretName.MatchString(arg):
			if name, _, ok := strings.Cut(arg, "="); ok {
				out[i] = name + "=" + Redacted
			} else {
				out[i] = arg
				hideNext = true
			}
		case strings.Contains(arg, "://"):
			out[i] = result.RedactURL(arg)
		default:
			out[i] = arg
		}
	}
	return out
}

// Print writes l's configuration, redacted, as perfgate.yaml-shaped YAML.
// Every value not at its default carries a comment saying where it was set.
func Print(w io.Writer, l *Loaded) error {
	cfg := l.Config.Redacted()
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
		return scalar(strconv.FormatFloat(v.Float(), 'g', -1, 64), "!!float")
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
				scalar(strconv.FormatFloat(v.MapIndex(k).Float(), 'g', -1, 64), "!!float"))
		}
		return n
	}
	return scalar(fmt.Sprint(v.Interface()), "!!str")
}

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
	v := reflect.ValueOf(l.Config.Redacted()).FieldByIndex(s.index)
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
