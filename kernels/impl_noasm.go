//go:build purego || !(amd64 || arm64)

package kernels

// archImplementations returns nothing: this build has no assembly (the
// purego tag, or an architecture without hand-written kernels).
func archImplementations() []*implementation { return nil }
