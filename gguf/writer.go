package gguf

import (
	"fmt"
	"io"
)

// Writer builds a GGUF v3 file in llama.cpp's layout: metadata in the order
// added, tensor descriptors in the order added, the data section aligned,
// and each tensor's data padded with zeros to the alignment.
type Writer struct {
	alignment int64
	kvs       []KV
	tensors   []TensorInfo
	data      [][]byte
	names     map[string]bool
}

// NewWriter returns a Writer using the given data alignment (a power of two;
// 0 means DefaultAlignment). When it differs from the default, WriteTo adds
// general.alignment as the first key unless the caller added it.
func NewWriter(alignment int64) *Writer {
	if alignment == 0 {
		alignment = DefaultAlignment
	}
	return &Writer{alignment: alignment, names: map[string]bool{}}
}

// AddKV appends a metadata pair. Keys must be unique, non-empty UTF-8;
// violations are reported by WriteTo.
func (w *Writer) AddKV(key string, v Value) {
	w.kvs = append(w.kvs, KV{Key: key, Value: v})
}

// AddTensor appends a tensor. dims are in ggml order (dims[0] is the row
// length); data must hold exactly the bytes dims and typ require. data is
// kept, not copied, until WriteTo.
func (w *Writer) AddTensor(name string, typ Type, dims []int64, data []byte) error {
	if err := checkTensor(name, typ, dims); err != nil {
		return err
	}
	if w.names[name] {
		return fmt.Errorf("gguf: duplicate tensor name %q", name)
	}
	n, _ := numElements(dims)
	size, _ := typ.RowBytes(n)
	if int64(len(data)) != size {
		return fmt.Errorf("gguf: tensor %q: %d bytes of data, but %v of %s takes %d", name, len(data), dims, typ, size)
	}
	var off int64
	if k := len(w.tensors); k > 0 {
		last := &w.tensors[k-1]
		off = alignUp(last.Offset+last.Size, w.alignment)
	}
	w.names[name] = true
	w.tensors = append(w.tensors, TensorInfo{Name: name, Dims: append([]int64(nil), dims...), Type: typ, Offset: off, Size: size})
	w.data = append(w.data, data)
	return nil
}

// WriteTo writes the file and returns the number of bytes written.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	kvs := w.kvs
	if w.alignment != DefaultAlignment && !hasKey(kvs, KeyAlignment) && w.alignment > 0 && w.alignment <= maxAlignment {
		kvs = append([]KV{{KeyAlignment, Uint32Value(uint32(w.alignment))}}, kvs...)
	}
	var dataLen int64
	if k := len(w.tensors); k > 0 && w.alignment > 0 {
		last := &w.tensors[k-1]
		dataLen = alignUp(last.Offset+last.Size, w.alignment)
	}
	p := plan{version: 3, alignment: w.alignment, kvs: kvs, tensors: w.tensors,
		data: func(i int) []byte { return w.data[i] }, dataLen: dataLen, padMeta: true}
	return p.write(out)
}

func hasKey(kvs []KV, key string) bool {
	for _, kv := range kvs {
		if kv.Key == key {
			return true
		}
	}
	return false
}

// WriteFile writes f: its KVs and tensor descriptors in their order, then
// each tensor's data at its offset, zero padding between. A v2 or v3 file
// that was parsed and not changed comes out byte-identical (provided its
// padding was zero and its bools were 0 or 1, as every writer makes them); a
// v1 file is written as v3, with the same data section. f must still be open
// (its tensor data is read from the mapping).
func WriteFile(out io.Writer, f *File) error {
	version := f.Version
	if version < 2 {
		version = 3
	}
	dataLen := f.dataLen
	for i := range f.Tensors {
		dataLen = max(dataLen, f.Tensors[i].Offset+f.Tensors[i].Size)
	}
	p := plan{version: version, alignment: f.Alignment, kvs: f.KVs, tensors: f.Tensors,
		data: func(i int) []byte { return f.TensorData(&f.Tensors[i]) }, dataLen: dataLen, padMeta: f.padMeta}
	_, err := p.write(out)
	return err
}
