package gguf

import (
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

// plan is everything needed to emit a file: shared by Writer and WriteFile.
type plan struct {
	version   uint32
	alignment int64
	kvs       []KV
	tensors   []TensorInfo
	data      func(i int) []byte // bytes of tensors[i]
	dataLen   int64              // data section length, at least every tensor's end
	padMeta   bool               // pad the metadata even when dataLen is 0
}

// write emits header, metadata, tensor descriptors, padding, then the data
// section in offset order with zero-filled gaps, up to dataLen.
func (p *plan) write(out io.Writer) (int64, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	e := newEncoder(out)
	e.bytes([]byte("GGUF"))
	e.u32(p.version)
	e.u64(uint64(len(p.tensors)))
	e.u64(uint64(len(p.kvs)))
	for _, kv := range p.kvs {
		if err := e.kv(kv.Key, kv.Value); err != nil {
			return e.n, err
		}
	}
	for i := range p.tensors {
		e.tensorInfo(&p.tensors[i])
	}
	if p.padMeta || p.dataLen > 0 || len(p.tensors) > 0 {
		e.zeros(alignUp(e.n, p.alignment) - e.n)
	}
	p.writeData(e)
	err := e.flush()
	return e.n, err
}

func (e *encoder) tensorInfo(ti *TensorInfo) {
	e.str(ti.Name)
	e.u32(uint32(len(ti.Dims)))
	for _, d := range ti.Dims {
		e.u64(uint64(d))
	}
	e.u32(uint32(ti.Type))
	e.u64(uint64(ti.Offset))
}

func (p *plan) writeData(e *encoder) {
	order := make([]int, len(p.tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpInt64(p.tensors[a].Offset, p.tensors[b].Offset) })
	var pos int64
	for _, i := range order {
		ti := &p.tensors[i]
		e.zeros(ti.Offset - pos)
		e.bytes(p.data(i))
		pos = max(pos, ti.Offset+ti.Size)
	}
	e.zeros(p.dataLen - pos)
}

// check validates what the encoder cannot: keys unique, alignment a power of
// two and consistent with general.alignment, tensors well-formed, aligned,
// not overlapping, with data of the right length.
func (p *plan) check() error {
	a := p.alignment
	if a <= 0 || a > maxAlignment || a&(a-1) != 0 {
		return fmt.Errorf("gguf: alignment %d is not a power of two in [1, 2^31]", a)
	}
	want := int64(DefaultAlignment)
	seen := make(map[string]bool, len(p.kvs))
	for _, kv := range p.kvs {
		if seen[kv.Key] {
			return fmt.Errorf("gguf: duplicate key %q", kv.Key)
		}
		seen[kv.Key] = true
		if kv.Key == KeyAlignment {
			u, _ := kv.Value.AsUint()
			want = int64(u)
		}
	}
	if want != a {
		return fmt.Errorf("gguf: alignment %d disagrees with %s = %d", a, KeyAlignment, want)
	}
	return p.checkTensors()
}

func (p *plan) checkTensors() error {
	names := make(map[string]bool, len(p.tensors))
	for i := range p.tensors {
		ti := &p.tensors[i]
		if names[ti.Name] {
			return fmt.Errorf("gguf: duplicate tensor name %q", ti.Name)
		}
		names[ti.Name] = true
		if err := checkTensor(ti.Name, ti.Type, ti.Dims); err != nil {
			return err
		}
		size, _ := ti.Type.RowBytes(ti.NumElements())
		switch {
		case size != ti.Size:
			return fmt.Errorf("gguf: tensor %q: Size %d, but %v of %s takes %d bytes", ti.Name, ti.Size, ti.Dims, ti.Type, size)
		case ti.Offset < 0 || ti.Offset%p.alignment != 0:
			return fmt.Errorf("gguf: tensor %q: offset %d is not a multiple of the alignment %d", ti.Name, ti.Offset, p.alignment)
		case int64(len(p.data(i))) != ti.Size:
			return fmt.Errorf("gguf: tensor %q: %d bytes of data available, want %d", ti.Name, len(p.data(i)), ti.Size)
		case ti.Offset > p.dataLen-ti.Size:
			return fmt.Errorf("gguf: tensor %q: data [%d, %d) beyond the data section (%d bytes)", ti.Name, ti.Offset, ti.Offset+ti.Size, p.dataLen)
		}
	}
	return checkOverlap(p.tensors)
}

// checkTensor validates a descriptor the way the reader does.
func checkTensor(name string, t Type, dims []int64) error {
	if name == "" || !utf8.ValidString(name) {
		return fmt.Errorf("gguf: tensor name %q: empty or not valid UTF-8", name)
	}
	if len(dims) < 1 || len(dims) > MaxDims {
		return fmt.Errorf("gguf: tensor %q: %d dimensions, want 1 to %d", name, len(dims), MaxDims)
	}
	if !t.Known() {
		return fmt.Errorf("gguf: tensor %q: unknown tensor type id %d", name, uint32(t))
	}
	n, ok := numElements(dims)
	if !ok {
		return fmt.Errorf("gguf: tensor %q: shape %v is negative or overflows int64", name, dims)
	}
	if dims[0]%int64(t.BlockSize()) != 0 {
		return fmt.Errorf("gguf: tensor %q: row length %d of type %s is not a multiple of the block size %d", name, dims[0], t, t.BlockSize())
	}
	if _, err := t.RowBytes(n); err != nil {
		return fmt.Errorf("gguf: tensor %q: %w", name, err)
	}
	return nil
}
