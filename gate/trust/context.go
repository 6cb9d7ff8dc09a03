package trust

import "strings"

// UnderReview reports whether a run whose environment is getenv judges a
// change under review, so that its baselines must be checked against the
// merge base: always, except a GitHub Actions push or scheduled run
// (GITHUB_EVENT_NAME other than pull_request*, merge_group), which
// measures the branch itself — its checked-out baselines are the trusted
// side, and there is no change to refuse.
func UnderReview(getenv func(string) string) bool {
	if getenv("GITHUB_ACTIONS") != "true" {
		return true
	}
	ev := getenv("GITHUB_EVENT_NAME")
	return ev == "" || strings.HasPrefix(ev, "pull_request") || ev == "merge_group"
}
