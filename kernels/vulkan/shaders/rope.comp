#version 450
#extension GL_GOOGLE_include_directive : require
// Rotates the first nRot values of every head of every token in place with
// the token's cos/sin table (kernels.RopeCache rows, nRot floats per token:
// pairs (cos, sin)): kernels.RopeApply. Normal mode rotates pairs
// (2i, 2i+1), NeoX mode pairs (i, i + nRot/2). One invocation per pair.
#include "common.glsl"

layout(std430, binding = 0) buffer Xb { float X[]; };
layout(std430, binding = 1) readonly buffer Cb { float CS[]; };

layout(push_constant) uniform P {
	uint nTok;
	uint nHead;
	uint headDim;
	uint nRot;
	uint neox;
	uint stride; // floats between tokens' rows
} p;

void main() {
	uint half_ = p.nRot / 2u;
	uint g = flatGroup() * WG + gl_LocalInvocationID.x;
	if (g >= p.nTok * p.nHead * half_) {
		return;
	}
	uint i = g % half_, h = (g / half_) % p.nHead, t = g / (half_ * p.nHead);
	float c = CS[t * p.nRot + 2u * i], s = CS[t * p.nRot + 2u * i + 1u];
	uint base = t * p.stride + h * p.headDim;
	uint j = p.neox != 0u ? base + i : base + 2u * i;
	uint k = p.neox != 0u ? j + half_ : j + 1u;
	float a = X[j], b = X[k];
	X[j] = a * c - b * s;
	X[k] = a * s + b * c;
}
