// Byte-level reads from a weight buffer declared as `uint W[]`. Blocks of
// the GGML formats are 18, 20, 22, 34, 84, 110, 144, 176 or 210 bytes long,
// so most fields are not 4-byte aligned; reading 32-bit words and shifting
// needs no 8- or 16-bit storage feature and works on every device.

uint rd8(uint b) { return (W[b >> 2] >> ((b & 3u) * 8u)) & 0xFFu; }

uint rd16(uint b) {
	uint s = (b & 3u) * 8u;
	uint lo = W[b >> 2] >> s;
	return s < 24u ? lo & 0xFFFFu : (lo | (W[(b >> 2) + 1u] << 8u)) & 0xFFFFu;
}

// rd32 reads 4 bytes at any byte offset (little-endian).
uint rd32(uint b) {
	uint s = (b & 3u) * 8u;
	uint lo = W[b >> 2];
	return s == 0u ? lo : (lo >> s) | (W[(b >> 2) + 1u] << (32u - s));
}

float rdf16(uint b) { return unpackHalf2x16(rd16(b)).x; }

// i8 sign-extends the low byte of v.
int i8(uint v) { return int(v << 24u) >> 24; }
