//go:build !purego

package turbo

// On arm64 level 1 is NEON; expand_test.go names it after amd64's.
func init() { expandNames[expandNEON] = "neon" }
