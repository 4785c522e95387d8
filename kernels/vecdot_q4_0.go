package kernels

// vecDotQ4_0Q8_0Generic follows ggml_vec_dot_q4_0_q8_0_generic: per block,
// sumi = sum((nibble-8) * q8) over the 32 values, then
// sumf += float(sumi) * dw * dx in that order.
func vecDotQ4_0Q8_0Generic(n int, w, x []byte) float32 {
	const wb, xb = 18, 34
	var sumf float32
	for b := 0; b < n/qk; b++ {
		bw, bx := w[b*wb:b*wb+wb], x[b*xb:b*xb+xb]
		qw, qx := bw[2:18], bx[2:34]
		var sumi0, sumi1 int32
		for j := 0; j < qk/2; j++ {
			sumi0 += (int32(qw[j]&0x0f) - 8) * int32(int8(qx[j]))
			sumi1 += (int32(qw[j]>>4) - 8) * int32(int8(qx[j+qk/2]))
		}
		sumf += float32(float32(float32(sumi0+sumi1)*f16At(bw)) * f16At(bx))
	}
	return sumf
}
