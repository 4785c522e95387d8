#version 450
#extension GL_GOOGLE_include_directive : require
// Row softmax in place: for each of n rows of width w, X = exp(X - max) /
// sum(exp(X - max)). One work group per row, shared-memory reductions.
#include "common.glsl"

layout(std430, binding = 0) buffer Xb { float X[]; };

layout(push_constant) uniform P {
	uint n;
	uint w;
} p;

shared float red[WG];

void main() {
	uint row = flatGroup(), tid = gl_LocalInvocationID.x;
	if (row >= p.n) {
		return;
	}
	uint base = row * p.w;
	float m = -1.0 / 0.0;
	for (uint i = tid; i < p.w; i += WG) {
		m = max(m, X[base + i]);
	}
	red[tid] = m;
	for (uint k = WG / 2u; k > 0u; k >>= 1u) {
		barrier();
		if (tid < k) {
			red[tid] = max(red[tid], red[tid + k]);
		}
	}
	barrier();
	m = red[0];
	barrier();
	float s = 0.0;
	for (uint i = tid; i < p.w; i += WG) {
		float e = exp(X[base + i] - m);
		X[base + i] = e;
		s += e;
	}
	red[tid] = s;
	for (uint k = WG / 2u; k > 0u; k >>= 1u) {
		barrier();
		if (tid < k) {
			red[tid] += red[tid + k];
		}
	}
	barrier();
	float inv = 1.0 / red[0];
	for (uint i = tid; i < p.w; i += WG) {
		X[base + i] *= inv;
	}
}
