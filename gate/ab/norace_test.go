//go:build !race

package ab

const raceBuild = false
