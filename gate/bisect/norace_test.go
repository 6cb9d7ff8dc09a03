//go:build !race

package bisect

const raceBuild = false
