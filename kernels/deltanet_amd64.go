//go:build !purego

package kernels

// gatedDeltaAVX2 (deltanet_amd64.s) advances dv state rows of dk floats
// each, like gatedDeltaStepGeneric when out is non-nil and like
// gatedDeltaUpdateGeneric when it is nil, with 8-lane FMA sums in the
// order the .s file describes (within tolDeltaStep of the Go loops, and
// identical for the two entry points). Preconditions: dk a multiple of 8,
// dk, dv > 0, s holds dk·dv floats, q and k dk, v and out dv; out must not
// alias the others. The Go wrappers check them.
//
//go:noescape
func gatedDeltaAVX2(s, q, k, v, out *float32, dk, dv int, decay, beta float32)

// deltaAsm reports whether the delta-rule kernels take the AVX2 path: the
// selected implementation is an assembly one (avx2 or avx512, both AVX2
// capable), so WAGGLE_KERNELS=generic, DisableAsm and SelectImpl("generic")
// route them to the Go references like every other kernel. Decided per
// call (one string compare against a 16K-element state update) because
// the kernel table of impl.go has no delta-rule entries.
func deltaAsm(dk int) bool { return dk%8 == 0 && activeName != "generic" && hasAVX2() }

func gatedDeltaStepImpl(s, q, k, v, out []float32, decay, beta float32) {
	if dk := len(k); deltaAsm(dk) {
		gatedDeltaAVX2(&s[0], &q[0], &k[0], &v[0], &out[0], dk, len(v), decay, beta)
		return
	}
	gatedDeltaStepGeneric(s, q, k, v, out, decay, beta)
}

func gatedDeltaUpdateImpl(s, k, v []float32, decay, beta float32) {
	if dk := len(k); deltaAsm(dk) {
		gatedDeltaAVX2(&s[0], nil, &k[0], &v[0], nil, dk, len(v), decay, beta)
		return
	}
	gatedDeltaUpdateGeneric(s, k, v, decay, beta)
}
