package kernels

// vecDotQ6_KQ8_KGeneric follows ggml_vec_dot_q6_K_q8_K_generic: the products
// scale_s * (q6-32) * q8 go into 8 integer lanes (value index mod 8) per
// super-block, scaled by d = dw*dx into 8 float32 running sums that are added
// at the end.
func vecDotQ6_KQ8_KGeneric(n int, w, x []byte) float32 {
	var sums [8]float32
	for b := 0; b < n/QK_K; b++ {
		bw := w[b*q6KBytes : (b+1)*q6KBytes]
		bx := x[b*q8KBytes : (b+1)*q8KBytes]
		qx := bx[q8KQs : q8KQs+QK_K]
		var lanes [8]int32
		for i := 0; i < QK_K; i++ {
			sc := int32(int8(bw[q6KScales+i/16]))
			lanes[i%8] += sc * int32(q6KValue(bw, i)) * int32(int8(qx[i]))
		}
		d := f16At(bw[q6KD:]) * f32At(bx[q8KD:])
		for l := range sums {
			sums[l] += float32(d * float32(lanes[l]))
		}
	}
	var sumf float32
	for _, s := range sums {
		sumf += s
	}
	return sumf
}
