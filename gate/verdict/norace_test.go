//go:build !race

package verdict

const raceBuild = false
