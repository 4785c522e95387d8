#version 450
#extension GL_GOOGLE_include_directive : require
// Stores the keys and values of n tokens into their cache cells (token t's
// cell is Tok[4t+2]) in the cache's element type, and the same encoded rows
// densely into Out (keys of token t at outOff + t*rowWords, values at
// outOff + (n+t)*rowWords), from where the host copies them into its own
// cache. One invocation per 32-bit word of a row.
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Kb { float KS[]; };
layout(std430, binding = 1) readonly buffer Vb { float VS[]; };
layout(std430, binding = 2) readonly buffer Tb { uint Tok[]; };
layout(std430, binding = 3) writeonly buffer KCb { uint KC[]; };
layout(std430, binding = 4) writeonly buffer VCb { uint VC[]; };
layout(std430, binding = 5) writeonly buffer Ob { uint Out[]; };

layout(push_constant) uniform P {
	uint n;
	uint kvDim;
	uint srcStride; // floats between tokens' source rows
	uint outOff;    // first word of this layer's rows in Out
} p;

#if defined(KV_F16)
const uint PER_WORD = 2u;
uint enc(float a, float b) { return packHalf2x16(vec2(a, b)); }
#else
const uint PER_WORD = 1u;
#endif

void main() {
	uint rowWords = p.kvDim / PER_WORD;
	uint g = flatGroup() * WG + gl_LocalInvocationID.x;
	if (g >= p.n * rowWords) {
		return;
	}
	uint t = g / rowWords, w = g % rowWords;
	uint src = t * p.srcStride + w * PER_WORD;
#if defined(KV_F16)
	uint k = enc(KS[src], KS[src + 1u]), v = enc(VS[src], VS[src + 1u]);
#else
	uint k = floatBitsToUint(KS[src]), v = floatBitsToUint(VS[src]);
#endif
	uint dst = Tok[4u * t + 2u] * rowWords + w;
	KC[dst] = k;
	VC[dst] = v;
	Out[p.outOff + t * rowWords + w] = k;
	Out[p.outOff + (p.n + t) * rowWords + w] = v;
}
