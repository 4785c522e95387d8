#version 450
#extension GL_GOOGLE_include_directive : require
// D[i] = A[i] + B[i % nb] for i < n: the residual add (nb = n) and the
// bias add (nb = the bias length, repeated over every row).
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Ab { float A[]; };
layout(std430, binding = 1) readonly buffer Bb { float B[]; };
layout(std430, binding = 2) writeonly buffer Db { float D[]; };

layout(push_constant) uniform P {
	uint n;
	uint nb;
} p;

void main() {
	uint i = flatGroup() * WG + gl_LocalInvocationID.x;
	if (i < p.n) {
		D[i] = A[i] + B[i % p.nb];
	}
}
