// Dequantization of one 32-value chunk of a weight row, for the type named
// by the TYPE_* define. chunk(rb, c, cols, w) writes values [32c, 32c+32) of
// the row that starts at byte rb of W into w (values at or past cols, which
// only float rows can have, are 0). Formats and value order follow ggml's
// dequantize_row_* (ggml-quants.c); the Go reference is
// kernels.DequantizeRow.
//
// Needs bytes.glsl.

#if defined(TYPE_F32)
const uint BLOCK_BYTES = 4u;
void chunk(uint rb, uint c, uint cols, out float w[32]) {
	for (uint i = 0u; i < 32u; i++) {
		uint k = 32u * c + i;
		w[i] = k < cols ? uintBitsToFloat(W[(rb >> 2) + k]) : 0.0;
	}
}
#elif defined(TYPE_F16) || defined(TYPE_BF16)
void chunk(uint rb, uint c, uint cols, out float w[32]) {
	for (uint i = 0u; i < 32u; i++) {
		uint k = 32u * c + i;
#if defined(TYPE_F16)
		w[i] = k < cols ? rdf16(rb + 2u * k) : 0.0;
#else
		w[i] = k < cols ? uintBitsToFloat(rd16(rb + 2u * k) << 16u) : 0.0;
#endif
	}
}
#elif defined(TYPE_Q8_0)
// block: d f16, qs[32] int8 (34 bytes)
void chunk(uint rb, uint c, uint cols, out float w[32]) {
	uint b = rb + 34u * c;
	float d = rdf16(b);
	for (uint i = 0u; i < 32u; i += 4u) {
		uint q = rd32(b + 2u + i);
		for (uint j = 0u; j < 4u; j++) {
			w[i + j] = d * float(i8(q >> (8u * j)));
		}
	}
}
#elif defined(TYPE_Q4_0) || defined(TYPE_Q4_1)
// q4_0: d f16, qs[16] (18 bytes): value j = (lo nibble of qs[j]) - 8, value
// j+16 = (hi nibble) - 8, times d. q4_1: d, m f16, qs[16] (20 bytes):
// nibble*d + m.
void chunk(uint rb, uint c, uint cols, out float w[32]) {
#if defined(TYPE_Q4_0)
	uint b = rb + 18u * c;
	float d = rdf16(b), m = -8.0 * d;
	uint qs = b + 2u;
#else
	uint b = rb + 20u * c;
	float d = rdf16(b), m = rdf16(b + 2u);
	uint qs = b + 4u;
#endif
	for (uint i = 0u; i < 16u; i += 4u) {
		uint q = rd32(qs + i);
		for (uint j = 0u; j < 4u; j++) {
			uint v = q >> (8u * j);
#if defined(TYPE_Q4_0)
			w[i + j] = d * float(int(v & 0xFu) - 8);
			w[i + j + 16u] = d * float(int((v >> 4u) & 0xFu) - 8);
#else
			w[i + j] = d * float(v & 0xFu) + m;
			w[i + j + 16u] = d * float((v >> 4u) & 0xFu) + m;
#endif
		}
	}
}
#elif defined(TYPE_Q5_0) || defined(TYPE_Q5_1)
// q5_0: d f16, qh u32, qs[16] (22 bytes); q5_1: d, m f16, qh, qs (24
// bytes). Bit j of qh is the fifth bit of value j, bit j+16 of value j+16.
void chunk(uint rb, uint c, uint cols, out float w[32]) {
#if defined(TYPE_Q5_0)
	uint b = rb + 22u * c;
	float d = rdf16(b);
	uint qh = rd32(b + 2u), qs = b + 6u;
#else
	uint b = rb + 24u * c;
	float d = rdf16(b), m = rdf16(b + 2u);
	uint qh = rd32(b + 4u), qs = b + 8u;
#endif
	for (uint i = 0u; i < 16u; i += 4u) {
		uint q = rd32(qs + i);
		for (uint j = 0u; j < 4u; j++) {
			uint k = i + j, v = q >> (8u * j);
			uint x0 = (v & 0xFu) | (((qh >> k) & 1u) << 4u);
			uint x1 = ((v >> 4u) & 0xFu) | (((qh >> (k + 16u)) & 1u) << 4u);
#if defined(TYPE_Q5_0)
			w[k] = d * float(int(x0) - 16);
			w[k + 16u] = d * float(int(x1) - 16);
#else
			w[k] = d * float(x0) + m;
			w[k + 16u] = d * float(x1) + m;
#endif
		}
	}
}
#elif defined(TYPE_Q4_K) || defined(TYPE_Q5_K)
// q4_K: d, dmin f16, scales[12], qs[128] (144 bytes); q5_K adds qh[32]
// before qs (176 bytes). Sub-block s (0..7) of a super-block has a 6-bit
// scale and min (get_scale_min_k4) and takes the low (s even) or high (s
// odd) nibbles of qs[32*(s/2) ...]; q5_K's fifth bit is bit s of qh[l].
void scaleMinK4(uint sc, uint j, out float s, out float m) {
	if (j < 4u) {
		s = float(rd8(sc + j) & 63u);
		m = float(rd8(sc + j + 4u) & 63u);
	} else {
		s = float((rd8(sc + j + 4u) & 0xFu) | ((rd8(sc + j - 4u) >> 6u) << 4u));
		m = float((rd8(sc + j + 4u) >> 4u) | ((rd8(sc + j) >> 6u) << 4u));
	}
}
void chunk(uint rb, uint c, uint cols, out float w[32]) {
#if defined(TYPE_Q4_K)
	uint b = rb + 144u * (c >> 3u);
	uint qs = b + 16u;
#else
	uint b = rb + 176u * (c >> 3u);
	uint qh = b + 16u, qs = b + 48u;
#endif
	uint s = c & 7u;
	float d = rdf16(b), dmin = rdf16(b + 2u), sc, mn;
	scaleMinK4(b + 4u, s, sc, mn);
	float d1 = d * sc, m1 = dmin * mn;
	uint q0 = qs + 32u * (s >> 1u), shift = 4u * (s & 1u);
	for (uint i = 0u; i < 32u; i += 4u) {
		uint q = rd32(q0 + i) >> shift;
#if defined(TYPE_Q5_K)
		uint h = rd32(qh + i) >> s;
#endif
		for (uint j = 0u; j < 4u; j++) {
			uint v = (q >> (8u * j)) & 0xFu;
#if defined(TYPE_Q5_K)
			v |= ((h >> (8u * j)) & 1u) << 4u;
#endif
			w[i + j] = d1 * float(v) - m1;
		}
	}
}
#elif defined(TYPE_Q6_K)
// q6_K: ql[128], qh[64], scales[16] int8, d f16 (210 bytes). Sub-block s
// (0..7): half h = s/4 of the super-block, k = s%4 selects ql's low (k<2)
// or high nibble of ql[64h + 32(k&1) + l] and bits 2k..2k+1 of qh[32h + l];
// value l has scale scales[8h + l/16 + 2k].
void chunk(uint rb, uint c, uint cols, out float w[32]) {
	uint b = rb + 210u * (c >> 3u);
	uint s = c & 7u, h = s >> 2u, k = s & 3u;
	float d = rdf16(b + 208u);
	uint ql = b + 64u * h + 32u * (k & 1u), qh = b + 128u + 32u * h;
	uint lshift = 4u * (k >> 1u), hshift = 2u * k;
	float d0 = d * float(i8(rd8(b + 192u + 8u * h + 2u * k)));
	float d1 = d * float(i8(rd8(b + 192u + 8u * h + 2u * k + 1u)));
	for (uint i = 0u; i < 32u; i += 4u) {
		uint lo = rd32(ql + i) >> lshift, hi = rd32(qh + i) >> hshift;
		for (uint j = 0u; j < 4u; j++) {
			uint v = ((lo >> (8u * j)) & 0xFu) | (((hi >> (8u * j)) & 3u) << 4u);
			w[i + j] = (i < 16u ? d0 : d1) * float(int(v) - 32);
		}
	}
}
#elif defined(TYPE_Q2_K)
// q2_K: scales[16], qs[64], d, dmin f16 (84 bytes). Sub-block s: half h =
// s/4, j = s%4 (2-bit field at shift 2j of qs[32h + l]); values 0..15 use
// scales[8h + 2j], 16..31 scales[8h + 2j + 1] (low nibble scale, high min).
void chunk(uint rb, uint c, uint cols, out float w[32]) {
	uint b = rb + 84u * (c >> 3u);
	uint s = c & 7u, h = s >> 2u, j = s & 3u;
	float d = rdf16(b + 80u), dmin = rdf16(b + 82u);
	uint sc0 = rd8(b + 8u * h + 2u * j), sc1 = rd8(b + 8u * h + 2u * j + 1u);
	float dl0 = d * float(sc0 & 0xFu), ml0 = dmin * float(sc0 >> 4u);
	float dl1 = d * float(sc1 & 0xFu), ml1 = dmin * float(sc1 >> 4u);
	uint q0 = b + 16u + 32u * h;
	for (uint i = 0u; i < 32u; i += 4u) {
		uint q = rd32(q0 + i) >> (2u * j);
		for (uint t = 0u; t < 4u; t++) {
			float v = float((q >> (8u * t)) & 3u);
			w[i + t] = i < 16u ? dl0 * v - ml0 : dl1 * v - ml1;
		}
	}
}
#elif defined(TYPE_Q3_K)
// q3_K: hmask[32], qs[64], scales[12], d f16 (110 bytes). Sub-block s: half
// h = s/4, j = s%4; 2-bit field at shift 2j of qs[32h + l], minus 4 unless
// bit s of hmask[l] is set; values 0..15 use scale 2s, 16..31 scale 2s+1,
// each a 6-bit value (low 4 bits from scales[0..7], high 2 from
// scales[8..11]) minus 32.
int scaleK3(uint sc, uint i) {
	uint lo = i < 8u ? rd8(sc + i) & 0xFu : rd8(sc + i - 8u) >> 4u;
	uint hi = (rd8(sc + 8u + (i & 3u)) >> (2u * (i >> 2u))) & 3u;
	return int(lo | (hi << 4u)) - 32;
}
void chunk(uint rb, uint c, uint cols, out float w[32]) {
	uint b = rb + 110u * (c >> 3u);
	uint s = c & 7u, h = s >> 2u, j = s & 3u;
	float d = rdf16(b + 108u);
	float dl0 = d * float(scaleK3(b + 96u, 2u * s)), dl1 = d * float(scaleK3(b + 96u, 2u * s + 1u));
	uint q0 = b + 32u + 32u * h;
	for (uint i = 0u; i < 32u; i += 4u) {
		uint q = rd32(q0 + i) >> (2u * j), m = rd32(b + i) >> s;
		for (uint t = 0u; t < 4u; t++) {
			int v = int((q >> (8u * t)) & 3u) - (((m >> (8u * t)) & 1u) != 0u ? 0 : 4);
			w[i + t] = (i < 16u ? dl0 : dl1) * float(v);
		}
	}
}
#else
#error "no TYPE_* defined"
#endif
