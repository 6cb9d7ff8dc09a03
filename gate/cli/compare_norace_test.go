//go:build !race

package cli

const compareRaceBuild = false
