package kernels

// vecDotQ8_0Q8_0Generic follows ggml_vec_dot_q8_0_q8_0_generic: per block,
// sumi = sum(qw * qx), then sumf += float(sumi) * (dw*dx).
func vecDotQ8_0Q8_0Generic(n int, w, x []byte) float32 {
	const bs = 34
	var sumf float32
	for b := 0; b < n/qk; b++ {
		bw, bx := w[b*bs:b*bs+bs], x[b*bs:b*bs+bs]
		qw, qx := bw[2:34], bx[2:34]
		var sumi int32
		for j := range qw {
			sumi += int32(int8(qw[j])) * int32(int8(qx[j]))
		}
		sumf += float32(float32(sumi) * float32(f16At(bw)*f16At(bx)))
	}
	return sumf
}
