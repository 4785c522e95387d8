package kernels

// vecDotQ3_KQ8_KGeneric follows ggml_vec_dot_q3_K_q8_K_generic: the integer
// products scale_s * q3 * q8 are accumulated per super-block into 8 lanes
// (lane = value index mod 8), each lane is scaled by d = dw*dx into its own
// float32 running sum across super-blocks, and the 8 lane sums are added at
// the end. Keeping ggml's lanes keeps its float rounding order.
func vecDotQ3_KQ8_KGeneric(n int, w, x []byte) float32 {
	var sums [8]float32
	for b := 0; b < n/QK_K; b++ {
		bw := w[b*q3KBytes : (b+1)*q3KBytes]
		bx := x[b*q8KBytes : (b+1)*q8KBytes]
		scales := unpackQ3KScales(bw[q3KScales : q3KScales+12])
		qx := bx[q8KQs : q8KQs+QK_K]
		var lanes [8]int32
		for i := 0; i < QK_K; i++ {
			q := int32(bw[q3KQs+32*(i/128)+i%32]>>(2*(i%128/32))) & 3
			if bw[q3KHmask+i%32]&(1<<(i/32)) == 0 {
				q -= 4
			}
			lanes[i%8] += int32(scales[i/16]) * q * int32(int8(qx[i]))
		}
		d := f16At(bw[q3KD:]) * f32At(bx[q8KD:])
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
