package cli

import "strings"

// environ is the environment the command runs in (Streams.Environ), a
// copy, for what takes the whole of it (a launched server, config.Load).
func (s *Streams) environ() []string { return append([]string(nil), s.Environ...) }

// lookupEnv reads one variable of the command's environment; the last
// entry of a name wins, as in os.Environ's order of setting.
func (s *Streams) lookupEnv(name string) (string, bool) {
	for i := len(s.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(s.Environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// getenv is lookupEnv without the flag.
func (s *Streams) getenv(name string) string {
	v, _ := s.lookupEnv(name)
	return v
}
