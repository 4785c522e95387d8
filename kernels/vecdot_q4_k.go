package kernels

// vecDotQ4_KQ8_KGeneric follows ggml_vec_dot_q4_K_q8_K_generic: per
// super-block, the products scale_s * q4 * q8 go into 8 integer lanes (value
// index mod 8) that are scaled by d = dw*dx into 8 float32 running sums, and
// the mins are applied through the activation block sums:
// sumf -= (dminw*dx) * float(sum_j bsums[j]*min_{j/2}). The lane sums are
// added to sumf at the end.
func vecDotQ4_KQ8_KGeneric(n int, w, x []byte) float32 {
	var sums [8]float32
	var sumf float32
	for b := 0; b < n/QK_K; b++ {
		bw := w[b*q4KBytes : (b+1)*q4KBytes]
		bx := x[b*q8KBytes : (b+1)*q8KBytes]
		qx := bx[q8KQs : q8KQs+QK_K]
		var lanes [8]int32
		summ := 0
		for s := 0; s < 8; s++ {
			sc, m := scaleMinK4(s, bw[q4KScales:])
			summ += (q8KBsum(bx, 2*s) + q8KBsum(bx, 2*s+1)) * int(m)
			qs := bw[q4KQs+32*(s/2) : q4KQs+32*(s/2)+32]
			for l := 0; l < 32; l++ {
				q := qs[l] & 0x0f
				if s&1 == 1 {
					q = qs[l] >> 4
				}
				lanes[l%8] += int32(sc) * int32(q) * int32(int8(qx[32*s+l]))
			}
		}
		dx := f32At(bx[q8KD:])
		d := f16At(bw[q4KD:]) * dx
		for l := range sums {
			sums[l] += float32(d * float32(lanes[l]))
		}
		dmin := f16At(bw[q4KDmin:]) * dx
		sumf -= float32(dmin * float32(summ))
	}
	for _, s := range sums {
		sumf += s
	}
	return sumf
}
