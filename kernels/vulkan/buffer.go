//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Memory says where a buffer lives.
type Memory int

const (
	// DeviceMemory is device-local memory (VRAM on a discrete GPU): weights,
	// the KV cache, activations. The CPU reaches it only through copies.
	DeviceMemory Memory = iota
	// HostMemory is host-visible, coherent memory, mapped for the buffer's
	// life: staging for uploads and downloads and per-step parameters.
	HostMemory
)

var bufferIDs atomic.Uint64

// Buffer is a VkBuffer with its own memory allocation.
type Buffer struct {
	d      *Device
	id     uint64 // unique per buffer, never reused (descriptor set cache key)
	handle vkBuffer
	mem    vkDeviceMemory
	size   uint64
	mapped unsafe.Pointer // HostMemory only
}

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// Bytes returns a host buffer's mapped memory (nil for device memory).
func (b *Buffer) Bytes() []byte {
	if b.mapped == nil {
		return nil
	}
	return unsafe.Slice((*byte)(b.mapped), b.size)
}

// Floats returns a host buffer's mapped memory as float32 values.
func (b *Buffer) Floats() []float32 {
	if b.mapped == nil {
		return nil
	}
	return unsafe.Slice((*float32)(b.mapped), b.size/4)
}

// Uint32s returns a host buffer's mapped memory as uint32 values.
func (b *Buffer) Uint32s() []uint32 {
	if b.mapped == nil {
		return nil
	}
	return unsafe.Slice((*uint32)(b.mapped), b.size/4)
}

// Region returns bytes [off, off+size) of the buffer.
func (b *Buffer) Region(off, size uint64) Region { return Region{B: b, Off: off, Size: size} }

// All returns the whole buffer as a region.
func (b *Buffer) All() Region { return Region{B: b, Size: b.size} }

// Region is a byte range of a buffer: what a shader binding covers.
type Region struct {
	B         *Buffer
	Off, Size uint64
}

// Sub returns bytes [off, off+size) of the region.
func (r Region) Sub(off, size uint64) Region { return Region{B: r.B, Off: r.Off + off, Size: size} }

// NewBuffer allocates a buffer of size bytes (rounded up to 16) usable as a
// storage buffer and as a copy source and destination.
func (d *Device) NewBuffer(size uint64, m Memory) (*Buffer, error) {
	if size == 0 {
		size = 16
	}
	size = (size + 15) &^ 15
	b := &Buffer{d: d, id: bufferIDs.Add(1), size: size}
	ci := &vkBufferCreateInfo{sType: stBufferCreateInfo, size: size, usage: bufferStorage | bufferTransferSrc | bufferTransferDst}
	h := uintptr(d.handle)
	if err := check("vkCreateBuffer", call(d.fn.createBuffer, h, uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&b.handle)))); err != nil {
		return nil, err
	}
	var req vkMemoryRequirements
	call(d.fn.getBufferMemoryRequirements, h, uintptr(b.handle), uintptr(unsafe.Pointer(&req)))
	mt, err := d.memoryType(req.memoryTypeBits, m)
	if err != nil {
		b.Free()
		return nil, err
	}
	ai := &vkMemoryAllocateInfo{sType: stMemoryAllocateInfo, allocationSize: req.size, memoryTypeIndex: mt}
	if err := check("vkAllocateMemory", call(d.fn.allocateMemory, h, uintptr(unsafe.Pointer(ai)), 0, uintptr(unsafe.Pointer(&b.mem)))); err != nil {
		b.Free()
		return nil, fmt.Errorf("%w (%d bytes)", err, size)
	}
	if err := check("vkBindBufferMemory", call(d.fn.bindBufferMemory, h, uintptr(b.handle), uintptr(b.mem), 0)); err != nil {
		b.Free()
		return nil, err
	}
	if m == HostMemory {
		if err := check("vkMapMemory", call(d.fn.mapMemory, h, uintptr(b.mem), 0, uintptr(wholeSize), 0, uintptr(unsafe.Pointer(&b.mapped)))); err != nil {
			b.Free()
			return nil, err
		}
	}
	return b, nil
}

// memoryType picks a memory type for the kind: device-local for
// DeviceMemory (any type as a fallback); host-visible and coherent for
// HostMemory, preferring cached memory (fast CPU reads of results).
func (d *Device) memoryType(bits uint32, m Memory) (uint32, error) {
	mp := &d.phys.mem
	best, bestScore := -1, -1
	for i := uint32(0); i < mp.memoryTypeCount; i++ {
		if bits&(1<<i) == 0 {
			continue
		}
		f := mp.memoryTypes[i].propertyFlags
		score := 0
		switch m {
		case DeviceMemory:
			if f&memDeviceLocal != 0 {
				score = 2
			}
		case HostMemory:
			if f&(memHostVisible|memHostCoherent) != memHostVisible|memHostCoherent {
				continue
			}
			if f&memHostCached != 0 {
				score = 1
			}
		}
		if score > bestScore {
			best, bestScore = int(i), score
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("vulkan: device %s has no suitable memory type (kind %d, bits %#x)", d.Name(), m, bits)
	}
	return uint32(best), nil
}

// Free releases the buffer and its memory (unmapping it). A buffer in use
// by a pending submit must not be freed.
func (b *Buffer) Free() {
	if b == nil || b.d == nil {
		return
	}
	h := uintptr(b.d.handle)
	if b.handle != 0 {
		call(b.d.fn.destroyBuffer, h, uintptr(b.handle), 0)
	}
	if b.mem != 0 {
		call(b.d.fn.freeMemory, h, uintptr(b.mem), 0) // unmaps implicitly
	}
	*b = Buffer{}
}
