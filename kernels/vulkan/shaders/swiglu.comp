#version 450
#extension GL_GOOGLE_include_directive : require
// D[i] = silu(G[i]) * U[i], silu(x) = x / (1 + exp(-x)) (kernels.SwiGLU).
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Gb { float G[]; };
layout(std430, binding = 1) readonly buffer Ub { float U[]; };
layout(std430, binding = 2) writeonly buffer Db { float D[]; };

layout(push_constant) uniform P {
	uint n;
} p;

void main() {
	uint i = flatGroup() * WG + gl_LocalInvocationID.x;
	if (i < p.n) {
		float g = G[i];
		D[i] = g / (1.0 + exp(-g)) * U[i];
	}
}
