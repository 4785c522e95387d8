// Access to KV cache rows bound as `uint K[]` / `uint V[]`: f16 values two
// to a word (KV_F16) or f32 values one to a word (KV_F32). A row holds the
// kvDim values of one cell, KV-head-major, as kvcache stores them.

#if defined(KV_F16)
// kvPair returns values 2i and 2i+1 of the row slice starting at value b.
vec2 kPair(uint b, uint i) { return unpackHalf2x16(K[b / 2u + i]); }
vec2 vPair(uint b, uint i) { return unpackHalf2x16(V[b / 2u + i]); }
float vAt(uint b) { vec2 v = unpackHalf2x16(V[b / 2u]); return (b & 1u) == 0u ? v.x : v.y; }
#elif defined(KV_F32)
vec2 kPair(uint b, uint i) { return vec2(uintBitsToFloat(K[b + 2u * i]), uintBitsToFloat(K[b + 2u * i + 1u])); }
vec2 vPair(uint b, uint i) { return vec2(uintBitsToFloat(V[b + 2u * i]), uintBitsToFloat(V[b + 2u * i + 1u])); }
float vAt(uint b) { return uintBitsToFloat(V[b]); }
#else
#error "no KV_* defined"
#endif
