#version 450
#extension GL_GOOGLE_include_directive : require
// Causal grouped-query attention of n tokens over a paged KV cache, flash
// style (one pass, online softmax): token t (sequence Tok[4t], position
// Tok[4t+1]) attends to positions 0..pos of its sequence, whose cells come
// from the sequence's page table Pg[seq*maxPages + pos/pageSize]. Query head
// h reads KV head h / (nHead/nHeadKV). One work group per (head, token);
// keys are scored WG at a time, one per thread, and the running maximum,
// sum and output are rescaled per chunk. Reductions go through shared
// memory in a fixed order, so a token's result does not depend on the rest
// of the batch.
#include "common.glsl"

layout(constant_id = 1) const uint HD = 64; // head size

layout(std430, binding = 0) readonly buffer Qb { float Q[]; };
layout(std430, binding = 1) readonly buffer Kb { uint K[]; };
layout(std430, binding = 2) readonly buffer Vb { uint V[]; };
layout(std430, binding = 3) readonly buffer Tb { uint Tok[]; };
layout(std430, binding = 4) readonly buffer Pb { uint Pg[]; };
layout(std430, binding = 5) writeonly buffer Ob { float O[]; };

layout(push_constant) uniform P {
	uint nTok;
	uint nHead;
	uint nHeadKV;
	uint kvDim;    // values per cache row
	uint pageSize; // positions per page
	uint maxPages; // page-table entries per sequence
	float scale;   // applied to q·k
	uint qStride;  // floats between tokens' query rows
	uint oStride;  // floats between tokens' output rows
} p;

#include "kv.glsl"

const float LOWEST = -3.402823e38;
const uint NO = (HD + WG - 1u) / WG; // output values per thread

shared float sq[HD];
shared float red[WG];
shared float sp[WG];
shared uint scell[WG];

void main() {
	uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, tid = gl_LocalInvocationID.x;
	if (t >= p.nTok) {
		return;
	}
	uint seq = Tok[4u * t], pos = Tok[4u * t + 1u];
	uint kvOff = (h / (p.nHead / p.nHeadKV)) * HD;
	for (uint d = tid; d < HD; d += WG) {
		sq[d] = Q[t * p.qStride + h * HD + d];
	}
	float o[NO];
	for (uint k = 0u; k < NO; k++) {
		o[k] = 0.0;
	}
	float m = LOWEST, l = 0.0;
	for (uint kb = 0u; kb <= pos; kb += WG) {
		barrier(); // sq is loaded; sp and scell of the previous chunk are consumed
		uint key = kb + tid;
		bool live = key <= pos;
		float s = LOWEST;
		uint cell = 0u;
		if (live) {
			cell = Pg[seq * p.maxPages + key / p.pageSize] * p.pageSize + key % p.pageSize;
			uint b = cell * p.kvDim + kvOff;
			float acc = 0.0;
			for (uint i = 0u; i < HD / 2u; i++) {
				vec2 kv = kPair(b, i);
				acc += sq[2u * i] * kv.x + sq[2u * i + 1u] * kv.y;
			}
			s = acc * p.scale;
		}
		scell[tid] = cell;
		red[tid] = s;
		for (uint k = WG / 2u; k > 0u; k >>= 1u) {
			barrier();
			if (tid < k) {
				red[tid] = max(red[tid], red[tid + k]);
			}
		}
		barrier();
		float mNew = max(m, red[0]);
		float pr = live ? exp(s - mNew) : 0.0;
		barrier();
		sp[tid] = pr;
		red[tid] = pr;
		for (uint k = WG / 2u; k > 0u; k >>= 1u) {
			barrier();
			if (tid < k) {
				red[tid] += red[tid + k];
			}
		}
		barrier();
		float alpha = exp(m - mNew);
		l = l * alpha + red[0];
		m = mNew;
		uint cnt = min(WG, pos + 1u - kb);
		for (uint k = 0u; k < NO; k++) {
			uint d = tid + k * WG;
			if (d < HD) {
				float acc = o[k] * alpha;
				for (uint j = 0u; j < cnt; j++) {
					acc += sp[j] * vAt(scell[j] * p.kvDim + kvOff + d);
				}
				o[k] = acc;
			}
		}
	}
	for (uint k = 0u; k < NO; k++) {
		uint d = tid + k * WG;
		if (d < HD) {
			O[t * p.oStride + h * HD + d] = o[k] / l;
		}
	}
}
