#version 450
#extension GL_GOOGLE_include_directive : require
// D[col][dOff + row] = W[row] · X[col] for every row of a weight part and
// every activation column: one work group per (row, group of NC columns).
// Each thread dequantizes 32-value chunks of the row (chunks tid, tid+WG,
// …) once and dots them with the NC columns; partial sums are reduced in
// shared memory by a fixed tree. A column's arithmetic does not depend on
// NC or on the other columns, so results are batch invariant.
#include "common.glsl"

layout(constant_id = 1) const uint NC = 8;

layout(std430, binding = 0) readonly buffer Wb { uint W[]; };
layout(std430, binding = 1) readonly buffer Xb { float X[]; };
layout(std430, binding = 2) writeonly buffer Db { float D[]; };

layout(push_constant) uniform P {
	uint rows;     // rows of this weight part
	uint cols;     // values per row (the dot length)
	uint rowBytes; // bytes per stored row
	uint ncols;    // activation columns
	uint xStride;  // floats between activation columns
	uint dStride;  // floats between output columns
	uint dOff;     // output index of this part's first row
} p;

#include "bytes.glsl"
#include "dequant.glsl"

shared float red[NC * WG];

void main() {
	uint row = flatGroup(), tid = gl_LocalInvocationID.x;
	uint col0 = gl_WorkGroupID.z * NC;
	if (row >= p.rows) {
		return;
	}
	float acc[NC];
	for (uint j = 0u; j < NC; j++) {
		acc[j] = 0.0;
	}
	uint nchunk = (p.cols + 31u) / 32u, rb = row * p.rowBytes;
	for (uint c = tid; c < nchunk; c += WG) {
		float w[32];
		chunk(rb, c, p.cols, w);
		uint n = min(32u, p.cols - 32u * c);
		for (uint j = 0u; j < NC; j++) {
			if (col0 + j < p.ncols) {
				uint xb = (col0 + j) * p.xStride + 32u * c;
				float s = 0.0;
				for (uint i = 0u; i < n; i++) {
					s += w[i] * X[xb + i];
				}
				acc[j] += s;
			}
		}
	}
	for (uint j = 0u; j < NC; j++) {
		red[j * WG + tid] = acc[j];
	}
	for (uint s = WG / 2u; s > 0u; s >>= 1u) {
		barrier();
		if (tid < s) {
			for (uint j = 0u; j < NC; j++) {
				red[j * WG + tid] += red[j * WG + tid + s];
			}
		}
	}
	if (tid == 0u) {
		for (uint j = 0u; j < NC && col0 + j < p.ncols; j++) {
			D[(col0 + j) * p.dStride + p.dOff + row] = red[j * WG];
		}
	}
}
