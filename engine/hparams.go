package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// Meta reads architecture-scoped hyper-parameters ("<arch>.<key>") from a
// GGUF file with clear errors, the way llama.cpp's llama_model_loader does.
type Meta struct {
	F    *gguf.File
	Arch string
}

// key returns "<arch>.<suffix>".
func (m Meta) key(suffix string) string { return m.Arch + "." + suffix }

// RequiredInt reads a positive integer hyper-parameter.
func (m Meta) RequiredInt(suffix string) (int, error) {
	v, ok := m.F.Uint(m.key(suffix))
	if !ok {
		return 0, fmt.Errorf("missing or non-integer metadata %q", m.key(suffix))
	}
	if v == 0 || v > 1<<31 {
		return 0, fmt.Errorf("metadata %q = %d out of range", m.key(suffix), v)
	}
	return int(v), nil
}

// Int reads an optional integer hyper-parameter.
func (m Meta) Int(suffix string, def int) (int, error) {
	k := m.key(suffix)
	if _, present := m.F.Get(k); !present {
		return def, nil
	}
	v, ok := m.F.Uint(k)
	if !ok || v > 1<<31 {
		return 0, fmt.Errorf("metadata %q is not a small non-negative integer", k)
	}
	return int(v), nil
}

// Float reads an optional float hyper-parameter.
func (m Meta) Float(suffix string, def float32) (float32, error) {
	k := m.key(suffix)
	if _, present := m.F.Get(k); !present {
		return def, nil
	}
	v, ok := m.F.Float(k)
	if !ok {
		return 0, fmt.Errorf("metadata %q is not a number", k)
	}
	return float32(v), nil
}

// String reads an optional string hyper-parameter.
func (m Meta) String(suffix, def string) string {
	if v, ok := m.F.String(m.key(suffix)); ok {
		return v
	}
	return def
}

// BlockCount reads "<arch>.block_count" and checks it against the file
// before a loader sizes anything by it: each block 0..n-1 must have
// tensors (names "blk.<i>.…"). A hostile count (2^31-1 in a file of a few
// KiB) is an error here instead of a per-layer allocation that no recover
// can catch. Loaders for new architectures read their layer count through
// it too.
func (m Meta) BlockCount() (int, error) {
	n, err := m.RequiredInt("block_count")
	if err != nil {
		return 0, err
	}
	if n > len(m.F.Tensors) {
		return 0, fmt.Errorf("metadata %q = %d, but the file holds only %d tensors", m.key("block_count"), n, len(m.F.Tensors))
	}
	seen := make([]bool, n)
	for i := range m.F.Tensors {
		if b, ok := blockIndex(m.F.Tensors[i].Name); ok && b < n {
			seen[b] = true
		}
	}
	for b, ok := range seen {
		if !ok {
			return 0, fmt.Errorf("metadata %q = %d, but the file has no tensors of block %d", m.key("block_count"), n, b)
		}
	}
	return n, nil
}

// blockIndex parses the block number of a tensor named "blk.<i>.…".
func blockIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	b, err := strconv.Atoi(num)
	return b, err == nil && b >= 0
}

// TensorDim checks a width read from metadata against the tensor that
// carries it as dimension axis, for a loader that sizes buffers by the
// width before binding that tensor (or whose tensors do not otherwise pin
// it down). A missing tensor is an error too.
func (m Meta) TensorDim(suffix string, v int, tensor string, axis int) error {
	ti, ok := m.F.Tensor(tensor)
	if !ok {
		return fmt.Errorf("missing tensor %q (needed to check metadata %q)", tensor, m.key(suffix))
	}
	if axis >= len(ti.Dims) || ti.Dims[axis] != int64(v) {
		return fmt.Errorf("metadata %q = %d does not match tensor %q of shape %v", m.key(suffix), v, tensor, ti.Dims)
	}
	return nil
}
