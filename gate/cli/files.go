package cli

import "github.com/perfgate/perfgate/gate/result"

// putResult writes r to path through the command's writer
// (Streams.writeResult; result.Write unless a test gave its own).
func (s *Streams) putResult(path string, r *result.Result) error {
	if s.writeResult != nil {
		return s.writeResult(path, r)
	}
	return result.Write(path, r)
}

// putFile writes data to path atomically through the command's writer
// (Streams.writeFile; result.WriteFileAtomic unless a test gave its own).
func (s *Streams) putFile(path string, data []byte) error {
	if s.writeFile != nil {
		return s.writeFile(path, data)
	}
	return result.WriteFileAtomic(path, data)
}
