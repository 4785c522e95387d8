package gguf

import "sync"

// KV is one metadata pair.
type KV struct {
	Key   string
	Value Value
}

// TensorInfo describes one tensor of a file.
type TensorInfo struct {
	Name string
	// Dims holds the shape in ggml order: Dims[0] is the row length (the
	// fastest-varying index); 1 to 4 entries.
	Dims   []int64
	Type   Type
	Offset int64 // relative to the start of the data section; aligned
	Size   int64 // bytes of data

	infoOff int64 // file offset of the descriptor, for error messages
}

// NumElements returns the number of values (the product of Dims); 0 when
// the product overflows int64, which a parsed file never has.
func (ti *TensorInfo) NumElements() int64 {
	n, ok := numElements(ti.Dims)
	if !ok {
		return 0
	}
	return n
}

// File is a parsed GGUF file. The exported fields may be edited before
// WriteFile; the lookup methods notice edits and fall back to a scan.
type File struct {
	Version    uint32
	KVs        []KV         // in file order
	Tensors    []TensorInfo // in file order
	Alignment  int64        // general.alignment, or DefaultAlignment
	DataOffset int64        // absolute file offset of the data section

	data        []byte // the whole file: a mapping, a read buffer, or Parse's input
	closeOnce   sync.Once
	unmap       func() error
	kvIndex     map[string]int
	tensorIndex map[string]int
	metaEnd     int64 // end of the tensor descriptors, before padding
	dataLen     int64 // bytes present from DataOffset to the end of the file
	padMeta     bool  // the input holds the padding after the metadata
}

// Close releases the mapping made by Open. Slices returned by TensorData are
// invalid afterwards (reading them may crash the process); metadata stays
// usable. Close is idempotent and does nothing for a File from Parse.
func (f *File) Close() error {
	var err error
	f.closeOnce.Do(func() {
		f.data = nil
		if f.unmap != nil {
			err = f.unmap()
		}
	})
	return err
}

// Size returns the size of the input in bytes (0 after Close).
func (f *File) Size() int64 { return int64(len(f.data)) }

// TensorData returns the bytes of ti, a slice of the mapping (no copy), or
// nil when ti does not lie inside the file or the file is closed. ti need
// not come from f.Tensors, but its offset is relative to f's data section.
func (f *File) TensorData(ti *TensorInfo) []byte {
	if ti == nil || ti.Offset < 0 || ti.Size < 0 || f.DataOffset < 0 {
		return nil
	}
	size := int64(len(f.data))
	if f.DataOffset > size || ti.Offset > size-f.DataOffset || ti.Size > size-f.DataOffset-ti.Offset {
		return nil
	}
	start := f.DataOffset + ti.Offset
	end := start + ti.Size
	return f.data[start:end:end]
}

// Tensor finds a tensor by name.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	if i, ok := f.tensorIndex[name]; ok && i < len(f.Tensors) && f.Tensors[i].Name == name {
		return &f.Tensors[i], true
	}
	for i := range f.Tensors {
		if f.Tensors[i].Name == name {
			return &f.Tensors[i], true
		}
	}
	return nil, false
}

// Get finds a metadata value by key.
func (f *File) Get(key string) (Value, bool) {
	if i, ok := f.kvIndex[key]; ok && i < len(f.KVs) && f.KVs[i].Key == key {
		return f.KVs[i].Value, true
	}
	for i := range f.KVs {
		if f.KVs[i].Key == key {
			return f.KVs[i].Value, true
		}
	}
	return Value{}, false
}

// String returns a string value.
func (f *File) String(key string) (string, bool) { v, _ := f.Get(key); return v.AsString() }

// Uint returns an integer value of any type that is not negative.
func (f *File) Uint(key string) (uint64, bool) { v, _ := f.Get(key); return v.AsUint() }

// Int returns an integer value of any type that fits in int64.
func (f *File) Int(key string) (int64, bool) { v, _ := f.Get(key); return v.AsInt() }

// Float returns a float32 or float64 value, or an integer as float64.
func (f *File) Float(key string) (float64, bool) { v, _ := f.Get(key); return v.AsFloat() }

// Bool returns a bool value.
func (f *File) Bool(key string) (bool, bool) { v, _ := f.Get(key); return v.AsBool() }

// Strings returns an array of strings, shared (do not modify): calling it
// repeatedly costs nothing.
func (f *File) Strings(key string) ([]string, bool) { v, _ := f.Get(key); return v.AsStrings() }

// Float32s returns an array of float32 (shared) or float64 (converted).
func (f *File) Float32s(key string) ([]float32, bool) { v, _ := f.Get(key); return v.AsFloat32s() }

// Int32s returns an array of any integer type as int32: an int32 array is
// shared, others are converted; false if an element does not fit.
func (f *File) Int32s(key string) ([]int32, bool) { v, _ := f.Get(key); return v.AsInt32s() }

// Architecture returns general.architecture, or "" when absent.
func (f *File) Architecture() string { s, _ := f.String("general.architecture"); return s }

// ArchKey returns "<architecture>.<suffix>", the name of an
// architecture-specific key such as "llama.block_count".
func (f *File) ArchKey(suffix string) string { return f.Architecture() + "." + suffix }
