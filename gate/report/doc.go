// Package report renders a finished verdict.Comparison (plus the result
// files it came from) for people: the markdown PR comment, the terminal
// text report, and JSON. Renderers are pure functions writing to an
// io.Writer; they never compute statistics (the verdict did) and never read
// files or the environment.
//
// Every string that came from a server or a file (model names, error
// bodies, workload and file names, fingerprint values) passes through
// Escape or Code before it enters markdown, and the PR comment is kept under
// GitHub's comment size limit by trimming details, never the headline or
// the verdict tables.
package report
