// Package actioncheck holds the tests of action.yml, the composite GitHub
// Action at the repository root: its shell steps receive inputs only through
// env: (never ${{ }} inside a script, which would allow script injection),
// every input and output is wired, the scripts parse (and pass ShellCheck
// when it is installed), and every perfgate flag the action passes exists
// on the command it calls.
package actioncheck
