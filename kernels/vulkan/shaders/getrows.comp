#version 450
#extension GL_GOOGLE_include_directive : require
// D[i][:] = dequantize(W row Idx[i]) for i < n: one work group per output
// row, each thread writing whole 32-value chunks.
#include "common.glsl"

layout(std430, binding = 0) readonly buffer Wb { uint W[]; };
layout(std430, binding = 1) readonly buffer Ib { uint Idx[]; };
layout(std430, binding = 2) writeonly buffer Db { float D[]; };

layout(push_constant) uniform P {
	uint n;        // rows to gather
	uint cols;     // values per row
	uint rowBytes; // bytes per stored row
	uint dStride;  // floats between output rows
} p;

#include "bytes.glsl"
#include "dequant.glsl"

void main() {
	uint i = flatGroup();
	if (i >= p.n) {
		return;
	}
	uint rb = Idx[i] * p.rowBytes;
	for (uint c = gl_LocalInvocationID.x; 32u * c < p.cols; c += WG) {
		float w[32];
		chunk(rb, c, p.cols, w);
		for (uint k = 0u; k < 32u && 32u * c + k < p.cols; k++) {
			D[i * p.dStride + 32u * c + k] = w[k];
		}
	}
}
