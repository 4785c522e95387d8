#version 450
#extension GL_GOOGLE_include_directive : require
// For each of n rows of width w (stride w): D = X * scale * Wt with
// scale = 1/sqrt(mean(X^2) + eps) (kernels.RMSNorm followed by kernels.Mul;
// the weight has w values). One work group per row; the sum of squares is
// reduced in shared memory in a fixed order. D may be X.
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Xb { float X[]; };
layout(std430, binding = 1) readonly buffer Wb { float Wt[]; };
layout(std430, binding = 2) buffer Db { float D[]; };

layout(push_constant) uniform P {
	uint n;
	uint w;
	float eps;
} p;

shared float red[WG];

void main() {
	uint row = flatGroup(), tid = gl_LocalInvocationID.x;
	if (row >= p.n) {
		return;
	}
	uint base = row * p.w;
	float s = 0.0;
	for (uint i = tid; i < p.w; i += WG) {
		float v = X[base + i];
		s += v * v;
	}
	red[tid] = s;
	for (uint k = WG / 2u; k > 0u; k >>= 1u) {
		barrier();
		if (tid < k) {
			red[tid] += red[tid + k];
		}
	}
	barrier();
	float scale = 1.0 / sqrt(red[0] / float(p.w) + p.eps);
	for (uint i = tid; i < p.w; i += WG) {
		D[base + i] = (X[base + i] * scale) * Wt[i];
	}
}
