package workload

// The tests load one file at a time; perfgate itself loads paths
// (LoadPaths), so these live with the tests.

// LoadFile parses, validates and expands every cell of one workload file.
// Errors are *Error values ("file:line: message"), joined.
func LoadFile(path string) ([]*Manifest, error) { return Loader{}.LoadFile(path) }

// LoadFile is LoadFile with l's warning handler.
func (l Loader) LoadFile(path string) ([]*Manifest, error) {
	ms, _, err := l.loadFile(path)
	return ms, err
}
