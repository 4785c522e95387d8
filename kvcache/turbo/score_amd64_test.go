//go:build !purego

package turbo

import "testing"

// fusedKernelBuilt: this build has the fused scoring and value kernels.
const fusedKernelBuilt = true

// TestFusedScoresAMD64: every type's scores are fused at the AVX2 and
// AVX-512 levels (each measured faster than expanding, score.go) and none
// at the Go level (the engine relies on FusedScores to choose its path).
func TestFusedScoresAMD64(t *testing.T) {
	forExpandImpls(t, func(impl string) {
		for _, typ := range Types {
			if got, want := typ.FusedScores(), expandImpl >= expandAVX2; got != want {
				t.Errorf("%s/%s: FusedScores %v, want %v", impl, typ, got, want)
			}
		}
	})
}
