package gguf

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// MaxDims is the largest number of tensor dimensions (GGML_MAX_DIMS).
const MaxDims = 4

// minTensorInfoBytes is the smallest encoded tensor descriptor: name length,
// n_dims, type, offset; a lower bound for rejecting absurd counts that lets
// empty names and n_dims 0 reach their own errors.
func (d *decoder) minTensorInfoBytes() int { return d.countWidth() + 4 + 4 + 8 }

func (d *decoder) tensorInfos(f *File, n uint64) {
	at, _ := d.countOffsets()
	d.kind, d.name = "header", ""
	if !d.fits(at, n, d.minTensorInfoBytes(), "tensor count") {
		return
	}
	d.kind, d.name = "tensor", ""
	f.Tensors = make([]TensorInfo, 0, min(n, preallocCap))
	f.tensorIndex = make(map[string]int, min(n, preallocCap))
	dims := make([]int64, 0, 2*min(n, preallocCap)) // shared backing; most tensors are 1-2D
	for i := 0; i < int(n); i++ {
		d.name, d.index = "", i
		var ti TensorInfo
		dims = d.tensorInfo(&ti, f, dims)
		if d.err != nil {
			return
		}
		f.tensorIndex[ti.Name] = i
		f.Tensors = append(f.Tensors, ti)
	}
}

// tensorInfo reads one descriptor into ti; its dimensions are appended to
// the shared backing array dims, which it returns.
func (d *decoder) tensorInfo(ti *TensorInfo, f *File, dims []int64) []int64 {
	at := d.off
	ti.infoOff = int64(at)
	ti.Name = d.tensorName(at, f.tensorIndex)
	if d.err != nil {
		return dims
	}
	d.name = ti.Name
	nat := d.off
	nd := d.u32("n_dims")
	if d.err == nil && (nd < 1 || nd > MaxDims) {
		d.fail(nat, ErrInvalid, "n_dims %d, want 1 to %d", nd, MaxDims)
	}
	start := len(dims)
	for j := 0; j < int(nd) && d.err == nil; j++ {
		dat := d.off
		v := d.count("dimension")
		if v > maxInt64 {
			d.fail(dat, ErrInvalid, "dimension %d is %d, beyond int64", j, v)
		}
		dims = append(dims, int64(v))
	}
	ti.Dims = dims[start:len(dims):len(dims)]
	tat := d.off
	ti.Type = Type(d.u32("type"))
	oat := d.off
	off := d.u64("offset")
	if d.err != nil {
		return dims
	}
	ti.Size = d.tensorSize(ti, nat, tat)
	switch {
	case d.err != nil:
	case off > maxInt64:
		d.fail(oat, ErrInvalid, "offset %d beyond int64", off)
	case int64(off)%f.Alignment != 0:
		d.fail(oat, ErrInvalid, "offset %d is not a multiple of the alignment %d", off, f.Alignment)
	}
	ti.Offset = int64(off)
	return dims
}

func (d *decoder) tensorName(at int, seen map[string]int) string {
	b := d.strBytes("name")
	if d.err != nil {
		return ""
	}
	switch {
	case len(b) == 0:
		d.fail(at, ErrInvalid, "empty tensor name")
	case !utf8.Valid(b):
		d.fail(at, ErrInvalid, "tensor name %q is not valid UTF-8", b)
	}
	if _, dup := seen[string(b)]; dup && d.err == nil {
		d.fail(at, ErrInvalid, "duplicate tensor name %q", b)
	}
	return string(b)
}

// tensorSize checks the type and shape of ti and returns its byte size.
// nat and tat are the offsets of n_dims and of the type, for errors.
func (d *decoder) tensorSize(ti *TensorInfo, nat, tat int) int64 {
	if !ti.Type.Known() {
		d.fail(tat, ErrUnknownType, "unknown tensor type id %d", uint32(ti.Type))
		return 0
	}
	n, ok := numElements(ti.Dims)
	if !ok {
		d.fail(nat, ErrInvalid, "shape %v: element count overflows int64", ti.Dims)
		return 0
	}
	if bs := int64(ti.Type.BlockSize()); ti.Dims[0]%bs != 0 {
		d.fail(nat, ErrInvalid, "row length %d of type %s is not a multiple of the block size %d", ti.Dims[0], ti.Type, bs)
		return 0
	}
	size, err := ti.Type.RowBytes(n)
	if err != nil {
		d.fail(nat, ErrInvalid, "shape %v: %v", ti.Dims, err)
	}
	return size
}

// numElements multiplies the dimensions, reporting false on int64 overflow
// or a negative dimension.
func numElements(dims []int64) (int64, bool) {
	n := int64(1)
	for _, v := range dims {
		if v < 0 {
			return 0, false
		}
		if v != 0 && n > maxInt64/v {
			return 0, false
		}
		n *= v
	}
	return n, true
}

// checkOverlap reports two tensors whose data ranges intersect. Zero-size
// tensors overlap nothing.
func checkOverlap(ts []TensorInfo) error {
	order := make([]int, 0, len(ts))
	for i := range ts {
		if ts[i].Size > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmpInt64(ts[a].Offset, ts[b].Offset) })
	for k := 1; k < len(order); k++ {
		prev, cur := &ts[order[k-1]], &ts[order[k]]
		if cur.Offset < prev.Offset+prev.Size {
			return &FormatError{Field: fmt.Sprintf("tensor %q", cur.Name), Offset: cur.infoOff, Err: ErrInvalid,
				Msg: fmt.Sprintf("data at relative offset %d overlaps tensor %q [%d, %d)", cur.Offset, prev.Name, prev.Offset, prev.Offset+prev.Size)}
		}
	}
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
