package kernels

// vecDotQ5_KQ8_KGeneric follows ggml_vec_dot_q5_K_q8_K_generic, which is the
// q4_K scheme (see vecDotQ4_KQ8_KGeneric) with a fifth bit per value from qh.
func vecDotQ5_KQ8_KGeneric(n int, w, x []byte) float32 {
	var sums [8]float32
	var sumf float32
	for b := 0; b < n/QK_K; b++ {
		bw := w[b*q5KBytes : (b+1)*q5KBytes]
		bx := x[b*q8KBytes : (b+1)*q8KBytes]
		qx := bx[q8KQs : q8KQs+QK_K]
		qh := bw[q5KQh : q5KQh+32]
		var lanes [8]int32
		summ := 0
		for s := 0; s < 8; s++ {
			sc, m := scaleMinK4(s, bw[q5KScales:])
			summ += (q8KBsum(bx, 2*s) + q8KBsum(bx, 2*s+1)) * int(m)
			qs := bw[q5KQs+32*(s/2) : q5KQs+32*(s/2)+32]
			for l := 0; l < 32; l++ {
				q := qs[l] & 0x0f
				if s&1 == 1 {
					q = qs[l] >> 4
				}
				q |= (qh[l] >> s & 1) << 4
				lanes[l%8] += int32(sc) * int32(q) * int32(int8(qx[32*s+l]))
			}
		}
		dx := f32At(bx[q8KD:])
		d := f16At(bw[q5KD:]) * dx
		for l := range sums {
			sums[l] += float32(d * float32(lanes[l]))
		}
		dmin := f16At(bw[q5KDmin:]) * dx
		sumf -= float32(dmin * float32(summ))
	}
	for _, s := range sums {
		sumf += s
	}
	return sumf
}
