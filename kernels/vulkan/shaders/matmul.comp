#version 450
#extension GL_GOOGLE_include_directive : require
// D[col][dOff + row] = W[row] · X[col] for every row of a weight part and
// every activation column. A work group of WG threads takes WG/TPR rows,
// TPR threads per row, and NC columns. Each thread dequantizes 32-value
// chunks of its row (chunks lane, lane+TPR, …) once and dots them with the
// NC columns; a row's partial sums are reduced in shared memory by a fixed
// tree over its TPR threads. A column's arithmetic depends only on TPR (set
// by the row length), never on NC, the rows sharing the group or the other
// columns, so results are batch invariant.
#include "common.glsl"

layout(constant_id = 1) const uint NC = 8;  // columns per work group
layout(constant_id = 2) const uint TPR = 64; // threads per row, a power of two dividing WG

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
	uint tid = gl_LocalInvocationID.x, lane = tid % TPR;
	uint row = flatGroup() * (WG / TPR) + tid / TPR;
	uint col0 = gl_WorkGroupID.z * NC;
	bool live = row < p.rows; // a group's last rows may not exist; they still meet the barriers
	float acc[NC];
	for (uint j = 0u; j < NC; j++) {
		acc[j] = 0.0;
	}
	uint nchunk = live ? (p.cols + 31u) / 32u : 0u, rb = row * p.rowBytes;
	for (uint c = lane; c < nchunk; c += TPR) {
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
	for (uint s = TPR / 2u; s > 0u; s >>= 1u) {
		barrier();
		if (lane < s) {
			for (uint j = 0u; j < NC; j++) {
				red[j * WG + tid] += red[j * WG + tid + s];
			}
		}
	}
	if (lane == 0u && live) {
		for (uint j = 0u; j < NC && col0 + j < p.ncols; j++) {
			D[(col0 + j) * p.dStride + p.dOff + row] = red[j * WG + tid];
		}
	}
}
