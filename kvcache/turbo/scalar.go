package turbo

// levelIndex returns the reconstruction index of v: the first i with
// v < th[i], or len(th), found by binary search over the sorted thresholds.
// The comparison is BeeLlama's strict "<", so a value exactly on a threshold
// takes the higher index (0.0 maps to the first positive level). A NaN
// compares false everywhere and takes the top index.
func levelIndex(v float32, th []float32) int {
	lo, hi := 0, len(th)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if v < th[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// scalarTables returns the levels and thresholds of a scalar type.
func scalarTables(t Type) (levels, th []float32) {
	switch t {
	case Turbo2:
		return centroids2[:], thresholds2[:]
	case Turbo3:
		return centroids3[:], thresholds3[:]
	default:
		return centroids4[:], thresholds4[:]
	}
}

// encodeScalar quantizes one group (up to 128 values, zero-padded) into one
// turbo2/3/4 block: norm, rotate, nearest level by threshold, pack, and store
// the corrected norm n/||c|| with ||c||² summed in index order.
func encodeScalar(t Type, b []byte, src []float32) {
	var z [BlockSize]float32
	var idx [BlockSize]uint8
	n := normalizeRotate(&z, src, false)
	levels, th := scalarTables(t)
	var r2 float32
	for j, v := range z {
		i := levelIndex(v, th)
		idx[j] = uint8(i)
		r2 += float32(levels[i] * levels[i])
	}
	qs := b[normBytes:]
	switch t {
	case Turbo2:
		for i := range 32 {
			qs[i] = idx[4*i] | idx[4*i+1]<<2 | idx[4*i+2]<<4 | idx[4*i+3]<<6
		}
	case Turbo3:
		for i := range 32 {
			qs[i] = idx[4*i]&3 | (idx[4*i+1]&3)<<2 | (idx[4*i+2]&3)<<4 | (idx[4*i+3]&3)<<6
		}
		for i := range 16 {
			var h uint8
			for k := range 8 {
				h |= idx[8*i+k] >> 2 << k
			}
			qs[32+i] = h
		}
	case Turbo4:
		for i := range 64 {
			qs[i] = idx[2*i] | idx[2*i+1]<<4
		}
	}
	putBlockNorm(b, correctedNorm(n, r2))
}

// decodeScalar writes level[idx_j]·N for the 128 values of a turbo2/3/4
// block, in the rotated domain.
func decodeScalar(t Type, z *[BlockSize]float32, b []byte) {
	n := blockNorm(b)
	switch t {
	case Turbo2:
		qs := b[normBytes : normBytes+32]
		for i, q := range qs {
			z[4*i+0] = centroids2[q&3] * n
			z[4*i+1] = centroids2[q>>2&3] * n
			z[4*i+2] = centroids2[q>>4&3] * n
			z[4*i+3] = centroids2[q>>6] * n
		}
	case Turbo3:
		qs := b[normBytes : normBytes+32]
		hi := b[normBytes+32 : normBytes+48]
		for i, h := range hi {
			for k, x := range turbo3Indices(qs[2*i], qs[2*i+1], h) {
				z[8*i+k] = centroids3[x&7] * n
			}
		}
	case Turbo4:
		qs := b[normBytes : normBytes+64]
		for i, q := range qs {
			z[2*i] = centroids4[q&15] * n
			z[2*i+1] = centroids4[q>>4] * n
		}
	}
}
