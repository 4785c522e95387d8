//go:build purego || !(amd64 || arm64)

package kernels

// archLevels is generic alone: this build has no assembly (the purego tag,
// or an architecture without hand-written kernels).
var archLevels = []Level{Generic}

// registerArch adds nothing to the generic row.
func registerArch(*levelTables) {}
