package workload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Loader loads workload files. The zero value is ready to use.
type Loader struct {
	// Warn, when set, receives each warning (an *Error with Warning set),
	// such as an optional dataset file that is missing and whose cells are
	// therefore skipped. Without it warnings are dropped.
	Warn func(*Error)
}

// LoadPaths loads files and directories (recursively, every *.yaml and
// *.yml, in lexical order). A cell name defined in two files is an error
// naming both. Errors of all files are joined.
func LoadPaths(paths []string) ([]*Manifest, error) { return Loader{}.LoadPaths(paths) }

// loadFile returns the manifests and the line of the file's name key.
func (l Loader) loadFile(path string) ([]*Manifest, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	f, errs := parse(path, data)
	if len(errs) > 0 {
		return nil, 0, joinErrors(errs)
	}
	ms, warnings, errs := f.expand()
	for _, w := range warnings {
		if l.Warn != nil {
			l.Warn(w)
		}
	}
	if len(errs) > 0 {
		return nil, 0, joinErrors(errs)
	}
	return ms, f.lines.name, nil
}

// unwrapPath drops the path from an *fs.PathError, which the caller
// already prints.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// LoadPaths is the package-level LoadPaths with l's warning handler.
func (l Loader) LoadPaths(paths []string) ([]*Manifest, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	type origin struct {
		file string
		line int
	}
	seen := map[string]origin{}
	var all []*Manifest
	var errs []error
	for _, file := range files {
		ms, line, err := l.loadFile(file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, m := range ms {
			if prev, dup := seen[m.Cell]; dup {
				errs = append(errs, &Error{File: file, Line: max(line, 1),
					Msg: fmt.Sprintf("cell %q is also defined in %s:%d", m.Cell, prev.file, prev.line)})
				continue
			}
			seen[m.Cell] = origin{file, max(line, 1)}
			all = append(all, m)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return all, nil
}

// containsYAML reports whether a directory's files were already listed
// (the same directory named twice is not empty the second time).
func containsYAML(dir string, seen map[string]bool) bool {
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	for f := range seen {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

// Files lists the workload files named by paths: files as given,
// directories walked recursively for *.yaml and *.yml (hidden directories
// skipped) in lexical order, and glob patterns (workloads/smoke/*.yaml, as
// config files write them; no shell expands those) matched in lexical
// order. A file named twice is listed once.
func Files(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		c := filepath.Clean(p)
		if !seen[c] {
			seen[c] = true
			out = append(out, p)
		}
	}
	for _, p := range expandGlobs(paths) {
		st, err := os.Stat(p)
		if err != nil && strings.ContainsAny(p, "*?[") {
			// Not a smaller gate in silence: the pattern is named.
			return nil, fmt.Errorf("%s: the pattern matches no file (or is malformed)", p)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPath(err))
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		before := len(out)
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == before && !containsYAML(p, seen) {
			return nil, fmt.Errorf("%s: no *.yaml or *.yml workload files in the directory", p)
		}
	}
	return out, nil
}

// expandGlobs replaces each path holding glob metacharacters by its
// matches. A pattern without matches is kept, so os.Stat reports it as
// missing.
func expandGlobs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[") {
			if _, err := os.Stat(p); err != nil { // not a file literally named so
				if m, err := filepath.Glob(p); err == nil && len(m) > 0 {
					out = append(out, m...)
					continue
				}
			}
		}
		out = append(out, p)
	}
	return out
}
