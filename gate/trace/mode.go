package trace

import "fmt"

// Mode says when a gate profiles: `profile: on-regression | always |
// never`. A profile is one extra, short trial of the worst regressed
// workload per arm through the engine's /start_profile and /stop_profile;
// the verdict never depends on it.
type Mode string

// The modes.
const (
	Never        Mode = "never"
	OnRegression Mode = "on-regression"
	Always       Mode = "always"
)

// ParseMode reads a mode; "" is Never. The error names the valid values.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return Never, nil
	case Never, OnRegression, Always:
		return m, nil
	}
	return "", fmt.Errorf("profile %q: want on-regression, always or never", s)
}

// Want reports whether a run whose verdict did (regressed) or did not
// regress is profiled.
func (m Mode) Want(regressed bool) bool {
	return m == Always || (m == OnRegression && regressed)
}
