//go:build !purego && (amd64 || arm64)

package kernels

// The Go side of the delta-rule assembly, shared by amd64 (AVX2) and arm64
// (NEON). Each architecture's deltanet_<arch>.go forwards the *Arch names
// below to its stubs, so this file holds the dispatch and the edge cases
// once.

// deltaAsm reports whether the delta-rule kernels take the assembly path:
// the selected implementation is an assembly one (avx2 or avx512 on amd64,
// both AVX2 capable; neon or neondot on arm64), so WAGGLE_KERNELS=generic,
// DisableAsm and SelectImpl("generic") route them to the Go references
// like every other kernel. It is decided per call (one string compare
// against at least a head's worth of work) because the kernel table of
// impl.go has no delta-rule entries; the choice itself is the start-up
// one of impl.go.
func deltaAsm() bool { return activeName != "generic" }

func gatedDeltaStepImpl(s, q, k, v, out []float32, decay, beta float32) {
	if dk := len(k); dk%8 == 0 && deltaAsm() {
		gatedDeltaArch(&s[0], &q[0], &k[0], &v[0], &out[0], dk, len(v), decay, beta)
		return
	}
	gatedDeltaStepGeneric(s, q, k, v, out, decay, beta)
}

func gatedDeltaUpdateImpl(s, k, v []float32, decay, beta float32) {
	if dk := len(k); dk%8 == 0 && deltaAsm() {
		gatedDeltaArch(&s[0], nil, &k[0], &v[0], nil, dk, len(v), decay, beta)
		return
	}
	gatedDeltaUpdateGeneric(s, k, v, decay, beta)
}

// deltaOnes is the up operand that turns the selected SwiGLU kernel into
// SiLU: gate/(1+exp(-gate))·1 is exact, so the conv needs no exp of its own.
var deltaOnes = func() (o [256]float32) {
	for i := range o {
		o[i] = 1
	}
	return o
}()

// convSiLUStepImpl runs the taps in assembly, bit-identical to the Go loop
// before the activation (the same rounded products in the same order),
// then SiLU through the selected SwiGLU kernel (its polynomial exp, within
// tolDeltaElementwise), then shifts the window in Go (a memmove).
func convSiLUStepImpl(out, state, x, w []float32, kTaps int) {
	c := len(x)
	if c%8 != 0 || !deltaAsm() {
		convSiLUStepGeneric(out, state, x, w, kTaps)
		return
	}
	var st *float32
	if kTaps > 1 {
		st = &state[0]
	}
	convTapsArch(&out[0], st, &x[0], &w[0], c, kTaps)
	for off := 0; off < c; off += len(deltaOnes) {
		o := out[off:min(off+len(deltaOnes), c)]
		active.swiGLU(o, o, deltaOnes[:len(o)])
	}
	if kTaps > 1 {
		copy(state, state[c:])
		copy(state[(kTaps-2)*c:], x)
	}
}

func l2NormImpl(dst, x []float32, eps float32) {
	n8 := len(x) &^ 7
	if n8 == 0 || !deltaAsm() {
		l2NormGeneric(dst, x, eps)
		return
	}
	sum := sumSquaresArch(&x[0], n8)
	for _, v := range x[n8:] {
		sum += float64(v * v)
	}
	scale := l2NormScale(sum, eps)
	scaleToArch(&dst[0], &x[0], n8, scale)
	for i := n8; i < len(x); i++ {
		dst[i] = x[i] * scale
	}
}

func deltaDotsImpl(out, rows, x []float32) {
	m, n := len(out), len(x)
	if m == 0 || n%8 != 0 || !deltaAsm() {
		deltaDotsGeneric(out, rows, x)
		return
	}
	_ = rows[m*n-1]
	deltaDotsArch(&out[0], &rows[0], &x[0], m, n)
}

func deltaAxpysImpl(y, rows, w []float32) {
	m, n := len(w), len(y)
	if m == 0 || n%8 != 0 || !deltaAsm() {
		deltaAxpysGeneric(y, rows, w)
		return
	}
	_ = rows[m*n-1]
	deltaAxpysArch(&y[0], &rows[0], &w[0], m, n)
}
