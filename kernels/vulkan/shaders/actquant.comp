#version 450
#extension GL_GOOGLE_include_directive : require
// Rounds activations the way the CPU path quantizes them before a product
// (kernels.QuantizeRow into the weight's vec-dot type) and writes the
// dequantized values: D = dequantize(quantize(X)) for n rows of cols
// values (row stride cols). A product of these values with the dequantized
// weights equals the CPU's integer-block dot product up to float32
// rounding, so the device tracks llama.cpp as closely as the CPU does.
//   ACT_Q8_0: per 32 values d = amax/127 rounded to f16,
//             q = roundEven(x * 127/amax) (q8_0 and q8_1);
//   ACT_Q8_K: per 256 values iscale = -127/max (max: the first value of
//             largest magnitude), q = min(127, roundEven(iscale*x)),
//             d = 1/iscale in float32;
//   ACT_F16 / ACT_BF16: round to nearest even at that precision.
// One invocation per block (per value for F16/BF16).
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Xb { float X[]; };
layout(std430, binding = 1) writeonly buffer Db { float D[]; };

layout(push_constant) uniform P {
	uint n;
	uint cols;
} p;

// toF16 rounds v to the nearest binary16 value, ties to even
// (kernels.F32ToF16 then F16ToF32).
float toF16(float v) {
	float a = abs(v);
	if (a >= 65520.0) {
		return sign(v) * uintBitsToFloat(0x7F800000u);
	}
	if (a < 6.103515625e-05) { // subnormal halves: multiples of 2^-24
		return sign(v) * roundEven(a * 16777216.0) / 16777216.0;
	}
	uint b = floatBitsToUint(v);
	b += 0xFFFu + ((b >> 13u) & 1u);
	return uintBitsToFloat(b & 0xFFFFE000u);
}

// twoProd returns e with a*b = p + e exactly, p = a*b rounded (Dekker's
// product with Veltkamp's split: no fma, which Vulkan may not fuse).
float twoProd(float a, float b, float p) {
	precise float ca = 4097.0 * a, cb = 4097.0 * b;
	precise float ah = ca - (ca - a), bh = cb - (cb - b);
	precise float al = a - ah, bl = b - bh;
	precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
	return e;
}

// residual is a - c*b, with a - c*b's large part computed exactly.
float residual(float a, float b, float c) {
	precise float p = c * b;
	precise float r = (a - p) - twoProd(c, b, p);
	return r;
}

// divr is a/b rounded to nearest as IEEE division does: Vulkan lets a
// division be 2.5 ulp off, and a scale one ulp off moves values across
// the quantizer's rounding boundaries, so the neighbours of the quotient
// within 3 ulp are compared by their exact residuals. a and b are normal.
float divr(float a, float b) {
	precise float q0 = a / b;
	float best = q0, br = abs(residual(a, b, q0));
	for (int k = -3; k <= 3; k++) {
		float c = uintBitsToFloat(uint(int(floatBitsToUint(q0)) + k));
		float r = abs(residual(a, b, c));
		if (r < br) {
			best = c;
			br = r;
		}
	}
	return best;
}

#if defined(ACT_Q8_0)
const uint BLOCK = 32u;
#elif defined(ACT_Q8_K)
const uint BLOCK = 256u;
#else
const uint BLOCK = 1u;
#endif

void main() {
	uint g = flatGroup() * WG + gl_LocalInvocationID.x;
	uint bpr = p.cols / BLOCK;
	if (g >= p.n * bpr) {
		return;
	}
	uint base = (g / bpr) * p.cols + (g % bpr) * BLOCK;
#if defined(ACT_F16)
	D[base] = toF16(X[base]);
#elif defined(ACT_BF16)
	uint b = floatBitsToUint(X[base]);
	b += 0x7FFFu + ((b >> 16u) & 1u);
	D[base] = uintBitsToFloat(b & 0xFFFF0000u);
#else
	float amax = 0.0, vmax = 0.0;
	for (uint i = 0u; i < BLOCK; i++) {
		float v = X[base + i];
		if (abs(v) > amax) {
			amax = abs(v);
			vmax = v;
		}
	}
	if (amax == 0.0) {
		for (uint i = 0u; i < BLOCK; i++) {
			D[base + i] = 0.0;
		}
		return;
	}
#if defined(ACT_Q8_0)
	float d = toF16(divr(amax, 127.0)), id = divr(127.0, amax);
	for (uint i = 0u; i < BLOCK; i++) {
		D[base + i] = d * roundEven(X[base + i] * id);
	}
#else
	float iscale = divr(-127.0, vmax), d = divr(1.0, iscale);
	for (uint i = 0u; i < BLOCK; i++) {
		D[base + i] = d * min(127.0, roundEven(iscale * X[base + i]));
	}
#endif
#endif
}
