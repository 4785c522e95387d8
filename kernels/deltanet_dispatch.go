package kernels

// The dispatch of the delta-rule kernels: each *Impl runs the selected
// level's deltaKernels (the registry's delta entry) where their
// preconditions hold and the Go references otherwise (the generic level,
// which has none, and sizes that are not whole vectors).

// deltaKernels are one level's delta-rule kernels, the stubs described in
// deltanet_<arch>.go. Every length argument that counts vector lanes (dk,
// n) is a positive multiple of 8; the wrappers below check it.
type deltaKernels struct {
	gated      func(s, q, k, v, out *float32, dk, dv int, decay, beta float32)
	convTaps   func(out, state, x, w *float32, n, kTaps int)
	dots       func(out, rows, x *float32, m, n int)
	axpys      func(y, rows, w *float32, m, n int)
	sumSquares func(x *float32, n int) float64
	scaleTo    func(dst, x *float32, n int, s float32)
}

func gatedDeltaStepImpl(s, q, k, v, out []float32, decay, beta float32) {
	if d, dk := active.delta, len(k); d != nil && dk%8 == 0 {
		d.gated(&s[0], &q[0], &k[0], &v[0], &out[0], dk, len(v), decay, beta)
		return
	}
	gatedDeltaStepGeneric(s, q, k, v, out, decay, beta)
}

func gatedDeltaUpdateImpl(s, k, v []float32, decay, beta float32) {
	if d, dk := active.delta, len(k); d != nil && dk%8 == 0 {
		d.gated(&s[0], nil, &k[0], &v[0], nil, dk, len(v), decay, beta)
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
	c, d := len(x), active.delta
	if c%8 != 0 || d == nil {
		convSiLUStepGeneric(out, state, x, w, kTaps)
		return
	}
	var st *float32
	if kTaps > 1 {
		st = &state[0]
	}
	d.convTaps(&out[0], st, &x[0], &w[0], c, kTaps)
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
	n8, d := len(x)&^7, active.delta
	if n8 == 0 || d == nil {
		l2NormGeneric(dst, x, eps)
		return
	}
	sum := d.sumSquares(&x[0], n8)
	for _, v := range x[n8:] {
		sum += float64(v * v)
	}
	scale := l2NormScale(sum, eps)
	d.scaleTo(&dst[0], &x[0], n8, scale)
	for i := n8; i < len(x); i++ {
		dst[i] = x[i] * scale
	}
}

func deltaDotsImpl(out, rows, x []float32) {
	m, n, d := len(out), len(x), active.delta
	if m == 0 || n%8 != 0 || d == nil {
		deltaDotsGeneric(out, rows, x)
		return
	}
	_ = rows[m*n-1]
	d.dots(&out[0], &rows[0], &x[0], m, n)
}

func deltaAxpysImpl(y, rows, w []float32) {
	m, n, d := len(w), len(y), active.delta
	if m == 0 || n%8 != 0 || d == nil {
		deltaAxpysGeneric(y, rows, w)
		return
	}
	_ = rows[m*n-1]
	d.axpys(&y[0], &rows[0], &w[0], m, n)
}
