package kernels

import "encoding/binary"

// gemmTileFunc is a GEMM tile kernel: four weight rows of ng groups
// (gemmKernel.values values each), wStride bytes apart from w, against one
// packed panel of four activation columns at x (ng records), writing
// dst[c*dstStride+r] for r, c < 4. See gemm_amd64.go.
type gemmTileFunc func(ng int, w *byte, wStride int, x *byte, dst *float32, dstStride int)

// gemmKernel is the GEMM path of one weight type: the tile kernel and the
// packer that lays out its activation panels.
type gemmKernel struct {
	tile   gemmTileFunc
	pack   func(dst, x []byte, xStride, n int) // one panel of four columns
	values int                                 // values per group (record)
	record int                                 // bytes per packed record
}

// Tiles are four weight rows × four activation columns (one panel).
const (
	gemmTileRows = 4
	gemmTileCols = 4
)

// Packed record sizes: q8_0 per group of four blocks (128 values), q8_K
// per super-block (256 values).
const (
	gemmRecordQ8_0 = 640
	gemmRecordQ8_K = 1280

	gemmRecordQ8_0Quad = 2560 // per quad of sixteen q8_0 blocks (512 values)
)

// packQ8_0Panel packs four q8_0 activation columns of n values (n a
// multiple of 128), the first at x and the others xStride bytes on, into
// dst (n/128 records of gemmRecordQ8_0 bytes) for a weight type whose tile
// kernel encodes weights as value + bias. Record g holds, for column c: at
// c*128 the values 0-15 of blocks 4g..4g+3 (16 bytes each, block order),
// at c*128+64 their values 16-31; at 512 sixteen int32 -bias*sum(block
// 4g+k of column c) at dword 4k+c; at 576 sixteen float32 d(block 4g+k of
// column c) at dword 4k+c.
func packQ8_0Panel(dst, x []byte, xStride, n int, bias int32) {
	const xb = 34 // bytes of a q8_0 block
	for g := range n / 128 {
		rec := dst[g*gemmRecordQ8_0 : (g+1)*gemmRecordQ8_0]
		for c := range gemmTileCols {
			col := x[c*xStride+g*4*xb:]
			for k := range 4 {
				blk := col[k*xb : (k+1)*xb]
				copy(rec[c*128+k*16:c*128+k*16+16], blk[2:18])
				copy(rec[c*128+64+k*16:c*128+64+k*16+16], blk[18:34])
				var sum int32
				for _, q := range blk[2:34] {
					sum += int32(int8(q))
				}
				binary.LittleEndian.PutUint32(rec[512+(4*k+c)*4:], uint32(-bias*sum))
				putF32(rec[576+(4*k+c)*4:], f16At(blk))
			}
		}
	}
}

// packQ8_0Quads packs four q8_0 activation columns of n values (n a
// multiple of 512) for the transposed Q4_0 kernel: n/512 records of
// gemmRecordQ8_0Quad bytes, one per quad of sixteen blocks (j = 4q+k).
// Column c's part starts at c*576: at d*64 + k*16 + q*4 the values 4d..4d+3
// of block j, at 256 + d*64 + k*16 + q*4 its values 16+4d..16+4d+3, at 512
// + k*16 + q*4 the int32 -bias*sum(block j); the float32 d of block j of
// column c is at 2304 + q*64 + k*16 + c*4.
func packQ8_0Quads(dst, x []byte, xStride, n int, bias int32) {
	const xb = 34 // bytes of a q8_0 block
	for g := range n / 512 {
		rec := dst[g*gemmRecordQ8_0Quad : (g+1)*gemmRecordQ8_0Quad]
		for c := range gemmTileCols {
			col := x[c*xStride+g*16*xb:]
			part := rec[c*576 : (c+1)*576]
			for j := range 16 {
				q, k := j/4, j%4
				blk := col[j*xb : (j+1)*xb]
				for d := range 4 {
					copy(part[d*64+k*16+q*4:d*64+k*16+q*4+4], blk[2+4*d:6+4*d])
					copy(part[256+d*64+k*16+q*4:256+d*64+k*16+q*4+4], blk[18+4*d:22+4*d])
				}
				var sum int32
				for _, v := range blk[2:34] {
					sum += int32(int8(v))
				}
				binary.LittleEndian.PutUint32(part[512+k*16+q*4:], uint32(-bias*sum))
				putF32(rec[2304+q*64+k*16+c*4:], f16At(blk))
			}
		}
	}
}

// packQ8_KPanel packs four q8_K activation columns of n values (n a
// multiple of QK_K), xStride bytes apart from x, into dst (n/QK_K records
// of gemmRecordQ8_K bytes). Columns go in pairs p (0: columns 0 | 1, 1:
// 2 | 3), 32 bytes each side by side: record b holds at k*128+64p chunk k
// (values 32k..32k+31) of super-block b, at 1024+64p the sixteen int16
// bsums, and at 1152+64p the float32 d repeated eight times.
func packQ8_KPanel(dst, x []byte, xStride, n int) {
	for b := range n / QK_K {
		rec := dst[b*gemmRecordQ8_K : (b+1)*gemmRecordQ8_K]
		for c := range gemmTileCols {
			blk := x[c*xStride+b*q8KBytes : c*xStride+(b+1)*q8KBytes]
			half := c/2*64 + c%2*32
			for k := range 8 {
				copy(rec[k*128+half:k*128+half+32], blk[q8KQs+32*k:q8KQs+32*k+32])
			}
			copy(rec[1024+half:1024+half+32], blk[q8KBsums:q8KBsums+32])
			for i := range 8 {
				copy(rec[1152+half+4*i:1152+half+4*i+4], blk[q8KD:q8KD+4])
			}
		}
	}
}

// gemmDisabled turns the GEMM path off (tests and benchmarks compare it
// with VecDotN). Like SelectImpl it must not change while kernels run.
var gemmDisabled bool

// disableGEMM turns the GEMM path off and returns a func that restores it.
func disableGEMM() (restore func()) {
	prev := gemmDisabled
	gemmDisabled = true
	return func() { gemmDisabled = prev }
}
