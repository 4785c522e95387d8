package kernels

// vecDotQ4_1Q8_1Generic follows ggml_vec_dot_q4_1_q8_1_generic: per block,
// sumi = sum(nibble * q8), then sumf += (dw*dx)*float(sumi) + mw*sx, where sx
// is the activation block's stored fp16 s = dx*sum(q8) that carries the
// weight minimum.
func vecDotQ4_1Q8_1Generic(n int, w, x []byte) float32 {
	const wb, xb = 20, 36
	var sumf float32
	for b := 0; b < n/qk; b++ {
		bw, bx := w[b*wb:b*wb+wb], x[b*xb:b*xb+xb]
		qw, qx := bw[4:20], bx[4:36]
		var sumi0, sumi1 int32
		for j := 0; j < qk/2; j++ {
			sumi0 += int32(qw[j]&0x0f) * int32(int8(qx[j]))
			sumi1 += int32(qw[j]>>4) * int32(int8(qx[j+qk/2]))
		}
		scaled := float32(f16At(bw)*f16At(bx)) * float32(sumi0+sumi1)
		sumf += float32(scaled) + float32(f16At(bw[2:])*f16At(bx[2:]))
	}
	return sumf
}
