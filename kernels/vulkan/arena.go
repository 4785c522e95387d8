//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"

	"github.com/waggle-llm/waggle/kernels"
)

// Matrix is a weight matrix in device memory: Rows rows of Cols values in
// Type's encoding (RowBytes bytes each), in one or more parts of whole
// rows, each part inside one buffer and no larger than the device's
// maxStorageBufferRange, so every part can be bound on its own.
type Matrix struct {
	Type     kernels.DType
	Rows     int
	Cols     int
	RowBytes int
	Parts    []MatrixPart
}

// MatrixPart is rows [Row0, Row0+Rows) of a matrix.
type MatrixPart struct {
	R          Region
	Row0, Rows int
}

// Arena packs weights into device buffers. Tensors are placed first
// (Matrix, Vector) and copied to the device by Upload, which allocates
// buffers of exactly the packed size; blocks are at most the device's
// binding limit (and 1 GiB), so a matrix larger than a block is split by
// rows across blocks.
type Arena struct {
	d         *Device
	blockSize uint64
	blocks    []*Buffer // placeholders until Upload fills them
	used      []uint64  // bytes placed in each block
	pending   []pendingCopy
	uploaded  bool
}

type pendingCopy struct {
	block int
	off   uint64
	data  []byte
}

// maxBlock caps arena blocks on devices whose binding range is huge.
const maxBlock = 1 << 30

// NewArena starts an empty arena.
func (d *Device) NewArena() *Arena {
	bs := min(d.maxRange(), maxBlock) &^ (d.offsetAlign() - 1)
	return &Arena{d: d, blockSize: bs}
}

// SetBlockSize lowers the block size (tests use it to force splits on
// small matrices). It must be called before anything is placed.
func (a *Arena) SetBlockSize(n uint64) {
	if len(a.blocks) == 0 && n >= 16 && n < a.blockSize {
		a.blockSize = n &^ (a.d.offsetAlign() - 1)
	}
}

// Bytes returns the bytes placed so far.
func (a *Arena) Bytes() uint64 {
	var n uint64
	for _, u := range a.used {
		n += u
	}
	return n
}

// place reserves n bytes (n <= blockSize) at an aligned offset, opening a
// new block when the current one is too full.
func (a *Arena) place(n uint64) (int, uint64) {
	al := a.d.offsetAlign()
	k := len(a.blocks) - 1
	if k < 0 || (a.used[k]+al-1)&^(al-1)+n > a.blockSize {
		a.blocks = append(a.blocks, &Buffer{})
		a.used = append(a.used, 0)
		k++
	}
	off := (a.used[k] + al - 1) &^ (al - 1)
	a.used[k] = off + n
	return k, off
}

// room returns how many bytes fit in the current block after alignment.
func (a *Arena) room() uint64 {
	k := len(a.blocks) - 1
	if k < 0 {
		return 0
	}
	al := a.d.offsetAlign()
	off := (a.used[k] + al - 1) &^ (al - 1)
	if off >= a.blockSize {
		return 0
	}
	return a.blockSize - off
}

// Matrix places a weight matrix (data holds rows*RowBytes bytes of type t)
// and returns its device description, usable after Upload.
func (a *Arena) Matrix(t kernels.DType, rows, cols int, data []byte) (*Matrix, error) {
	if a.uploaded {
		return nil, fmt.Errorf("vulkan: arena already uploaded")
	}
	rb := t.RowBytes(cols)
	if rows <= 0 || cols <= 0 || len(data) < rows*rb {
		return nil, fmt.Errorf("vulkan: matrix %d×%d of %s with %d bytes", rows, cols, t, len(data))
	}
	if uint64(rb) > a.blockSize {
		return nil, fmt.Errorf("vulkan: a %s row of %d values (%d bytes) exceeds the device's binding limit", t, cols, rb)
	}
	m := &Matrix{Type: t, Rows: rows, Cols: cols, RowBytes: rb}
	for r0 := 0; r0 < rows; {
		fit := int(a.room() / uint64(rb))
		if fit == 0 {
			fit = int(a.blockSize / uint64(rb))
		}
		n := min(rows-r0, fit)
		size := uint64(n * rb)
		k, off := a.place((size + 3) &^ 3)
		a.pending = append(a.pending, pendingCopy{block: k, off: off, data: data[r0*rb : (r0+n)*rb]})
		m.Parts = append(m.Parts, MatrixPart{R: Region{B: a.blocks[k], Off: off, Size: (size + 3) &^ 3}, Row0: r0, Rows: n})
		r0 += n
	}
	return m, nil
}

// Vector places a float32 vector (norm weights, biases) and returns its
// region, usable after Upload.
func (a *Arena) Vector(v []float32) (Region, error) {
	if a.uploaded {
		return Region{}, fmt.Errorf("vulkan: arena already uploaded")
	}
	n := uint64(4 * len(v))
	if n == 0 || n > a.blockSize {
		return Region{}, fmt.Errorf("vulkan: vector of %d values", len(v))
	}
	k, off := a.place(n)
	a.pending = append(a.pending, pendingCopy{block: k, off: off, data: floatBytes(v)})
	return Region{B: a.blocks[k], Off: off, Size: n}, nil
}

// Upload allocates the blocks and copies every placed tensor into them.
func (a *Arena) Upload(r *Recorder) error {
	if a.uploaded {
		return fmt.Errorf("vulkan: arena already uploaded")
	}
	a.uploaded = true
	for i, b := range a.blocks {
		nb, err := a.d.NewBuffer(a.used[i], DeviceMemory)
		if err != nil {
			return fmt.Errorf("vulkan: weights block %d of %d bytes: %w", i, a.used[i], err)
		}
		*b = *nb
	}
	for _, p := range a.pending {
		if err := r.Upload(a.blocks[p.block].Region(p.off, uint64(len(p.data))), p.data); err != nil {
			return err
		}
	}
	a.pending = nil
	return nil
}

// Free releases the arena's buffers.
func (a *Arena) Free() {
	for _, b := range a.blocks {
		b.Free()
	}
	a.blocks, a.used = nil, nil
}
