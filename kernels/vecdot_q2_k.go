package kernels

// vecDotQ2_KQ8_KGeneric follows ggml_vec_dot_q2_K_q8_K_generic: per
// super-block, isum = sum over the 16 sub-blocks of scale_s * sum(q2 * q8)
// and summs = sum_s min_s * bsums[s]; then
// sumf += dall*float(isum) - dmin*float(summs), with dall = dx*dw and
// dmin = dx*dminw.
func vecDotQ2_KQ8_KGeneric(n int, w, x []byte) float32 {
	var sumf float32
	for b := 0; b < n/QK_K; b++ {
		bw := w[b*q2KBytes : (b+1)*q2KBytes]
		bx := x[b*q8KBytes : (b+1)*q8KBytes]
		sc := bw[q2KScales : q2KScales+16]
		qx := bx[q8KQs : q8KQs+QK_K]
		summs := 0
		for s := 0; s < 16; s++ {
			summs += q8KBsum(bx, s) * int(sc[s]>>4)
		}
		isum := 0
		for s := 0; s < 16; s++ {
			isuml := 0
			for i := 16 * s; i < 16*s+16; i++ {
				q := int(bw[q2KQs+32*(i/128)+i%32]>>(2*(i%128/32))) & 3
				isuml += int(int8(qx[i])) * q
			}
			isum += int(sc[s]&0x0f) * isuml
		}
		dx := f32At(bx[q8KD:])
		dall := dx * f16At(bw[q2KD:])
		dmin := dx * f16At(bw[q2KDmin:])
		sumf += float32(dall*float32(isum)) - float32(dmin*float32(summs))
	}
	return sumf
}
