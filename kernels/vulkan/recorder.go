//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Recorder records dispatches and copies into one command buffer and
// submits them with one fence wait: a step of a whole layer range costs one
// round trip. It is not safe for concurrent use; each session owns one.
//
// Descriptor sets are cached by their bindings (buffer identity, offset,
// size): a model's buffers do not change between steps, so after the first
// step recording only looks sets up, and a warm step allocates nothing.
// Errors during recording are kept and returned by Submit.
type Recorder struct {
	d     *Device
	pool  vkCommandPool
	cb    vkCommandBuffer
	fence vkFence
	pools []vkDescriptorPool
	left  int // sets left in the newest descriptor pool
	sets  map[setKey]vkDescriptorSet

	staging *Buffer // uploads and downloads outside a step (transfer.go)

	recording  bool
	reuse      bool // keep recordings for Replay (Reusable)
	replayable bool // the command buffer holds a finished recording
	err        error
	dispatches int

	// Call arguments live here so that passing their address allocates
	// nothing.
	begin   vkCommandBufferBeginInfo
	barrier vkMemoryBarrier
	submit  vkSubmitInfo
	copyReg vkBufferCopy
	push    [pushBytes / 4]uint32
	set     vkDescriptorSet
	newSet  vkDescriptorSet
	alloc   vkDescriptorSetAllocateInfo
	infos   [maxBindings]vkDescriptorBufferInfo
	writes  [maxBindings]vkWriteDescriptorSet

	args [16]uintptr // call's argument block

	// Op arguments (ops.go), kept here for the same reason.
	regions  [maxBindings]Region
	pushBuf  [pushBytes / 4]uint32
	pushArgs []uint32
}

// call is the package's call for the recorder's hot entry points without
// an allocation: the arguments are copied into r.args, already on the heap,
// and passed on as that slice (a variadic argument of purego.SyscallN would
// be allocated per call). Unlike the package's call it does not keep
// pointer arguments alive or in place, so every pointer it gets must point
// into the recorder itself (its fields), which is on the heap, reachable,
// and written before the call.
func (r *Recorder) call(fn uintptr, a ...uintptr) uintptr {
	n := copy(r.args[:], a)
	res, _, _ := purego.SyscallN(fn, r.args[:n]...)
	return res
}

// setKey identifies a descriptor set by layout and bindings.
type setKey struct {
	n    int
	bind [maxBindings]struct{ id, off, size uint64 }
}

const setsPerPool = 1024

// NewRecorder makes a recorder with its own command pool, command buffer
// and fence.
func (d *Device) NewRecorder() (*Recorder, error) {
	r := &Recorder{d: d, sets: map[setKey]vkDescriptorSet{}}
	h := uintptr(d.handle)
	pci := &vkCommandPoolCreateInfo{sType: stCommandPoolCreateInfo, flags: cmdPoolResetCommandBuffer, queueFamilyIndex: d.family}
	if err := check("vkCreateCommandPool", call(d.fn.createCommandPool, h, uintptr(unsafe.Pointer(pci)), 0, uintptr(unsafe.Pointer(&r.pool)))); err != nil {
		return nil, err
	}
	ai := &vkCommandBufferAllocateInfo{sType: stCommandBufferAllocateInfo, commandPool: r.pool, level: commandBufferLevelPrimary, commandBufferCount: 1}
	if err := check("vkAllocateCommandBuffers", call(d.fn.allocateCommandBuffers, h, uintptr(unsafe.Pointer(ai)), uintptr(unsafe.Pointer(&r.cb)))); err != nil {
		r.Close()
		return nil, err
	}
	fci := &vkFenceCreateInfo{sType: stFenceCreateInfo}
	if err := check("vkCreateFence", call(d.fn.createFence, h, uintptr(unsafe.Pointer(fci)), 0, uintptr(unsafe.Pointer(&r.fence)))); err != nil {
		r.Close()
		return nil, err
	}
	r.begin = vkCommandBufferBeginInfo{sType: stCommandBufferBeginInfo, flags: cmdBufferOneTimeSubmit}
	r.barrier = vkMemoryBarrier{sType: stMemoryBarrier}
	r.submit = vkSubmitInfo{sType: stSubmitInfo, commandBufferCount: 1, pCommandBuffers: unsafe.Pointer(&r.cb)}
	return r, nil
}

// Close releases the recorder's Vulkan objects. It must not be recording
// or have a submit in flight.
func (r *Recorder) Close() {
	if r == nil || r.d == nil {
		return
	}
	h := uintptr(r.d.handle)
	r.staging.Free()
	for _, p := range r.pools {
		r.call(r.d.fn.destroyDescriptorPool, h, uintptr(p), 0)
	}
	if r.fence != 0 {
		r.call(r.d.fn.destroyFence, h, uintptr(r.fence), 0)
	}
	if r.pool != 0 {
		r.call(r.d.fn.destroyCommandPool, h, uintptr(r.pool), 0)
	}
	*r = Recorder{}
}

// Begin starts recording a step, discarding the previous recording.
func (r *Recorder) Begin() error {
	if r.recording {
		return errors.New("vulkan: Begin while recording")
	}
	r.err, r.dispatches, r.replayable = nil, 0, false
	if err := check("vkBeginCommandBuffer", r.call(r.d.fn.beginCommandBuffer, uintptr(r.cb), uintptr(unsafe.Pointer(&r.begin)))); err != nil {
		return err
	}
	r.recording = true
	return nil
}

// fail keeps the first recording error.
func (r *Recorder) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Dispatches returns the number of dispatches recorded since Begin.
func (r *Recorder) Dispatches() int { return r.dispatches }

// Dispatch records k over groups (x, y, z) with the regions bound to
// bindings 0..n-1 and push as push constants (at most 32 words).
func (r *Recorder) Dispatch(k *Kernel, regions []Region, push []uint32, x, y, z uint32) {
	if !r.recording {
		r.fail(errors.New("vulkan: Dispatch outside Begin/Submit"))
		return
	}
	if len(regions) != k.nBind || len(push) > len(r.push) {
		r.fail(fmt.Errorf("vulkan: %s: %d regions for %d bindings, %d push words", k.name, len(regions), k.nBind, len(push)))
		return
	}
	if x == 0 || y == 0 || z == 0 {
		return // nothing to do
	}
	if lim := r.d.phys.props.limits.maxComputeWorkGroupCount; x > lim[0] || y > lim[1] || z > lim[2] {
		r.fail(fmt.Errorf("vulkan: %s: work groups (%d, %d, %d) exceed the device's %v", k.name, x, y, z, lim))
		return
	}
	set, err := r.descriptorSet(k.p.layout, regions)
	if err != nil {
		r.fail(err)
		return
	}
	cb, l := uintptr(r.cb), k.p.layout
	r.set = set
	r.call(r.d.fn.cmdBindPipeline, cb, pipelineBindPointCompute, uintptr(k.p.handle))
	r.call(r.d.fn.cmdBindDescriptorSets, cb, pipelineBindPointCompute, uintptr(l.pipeLayout), 0, 1, uintptr(unsafe.Pointer(&r.set)), 0, 0)
	if len(push) > 0 {
		copy(r.push[:], push)
		r.call(r.d.fn.cmdPushConstants, cb, uintptr(l.pipeLayout), shaderStageCompute, 0, uintptr(4*len(push)), uintptr(unsafe.Pointer(&r.push[0])))
	}
	r.call(r.d.fn.cmdDispatch, cb, uintptr(x), uintptr(y), uintptr(z))
	r.dispatches++
}

// Barrier makes every shader and transfer write recorded so far visible to
// the shaders and transfers recorded after it.
func (r *Recorder) Barrier() {
	r.memoryBarrier(stageComputeShader|stageTransfer, stageComputeShader|stageTransfer,
		accessShaderWrite|accessTransferWrite, accessShaderRead|accessShaderWrite|accessTransferRead|accessTransferWrite)
}

func (r *Recorder) memoryBarrier(srcStage, dstStage, srcAccess, dstAccess uint32) {
	if !r.recording {
		r.fail(errors.New("vulkan: Barrier outside Begin/Submit"))
		return
	}
	r.barrier.srcAccessMask, r.barrier.dstAccessMask = srcAccess, dstAccess
	r.call(r.d.fn.cmdPipelineBarrier, uintptr(r.cb), uintptr(srcStage), uintptr(dstStage), 0, 1, uintptr(unsafe.Pointer(&r.barrier)), 0, 0, 0, 0)
}

// Copy records a copy of src into dst (src.Size bytes; dst must be as
// large). Offsets and size must be multiples of 4.
func (r *Recorder) Copy(dst, src Region) {
	if !r.recording {
		r.fail(errors.New("vulkan: Copy outside Begin/Submit"))
		return
	}
	if src.Size == 0 {
		return
	}
	if dst.Size < src.Size || src.Off%4 != 0 || dst.Off%4 != 0 || src.Size%4 != 0 {
		r.fail(fmt.Errorf("vulkan: copy of %d bytes at %d into %d bytes at %d", src.Size, src.Off, dst.Size, dst.Off))
		return
	}
	r.copyReg = vkBufferCopy{srcOffset: src.Off, dstOffset: dst.Off, size: src.Size}
	r.call(r.d.fn.cmdCopyBuffer, uintptr(r.cb), uintptr(src.B.handle), uintptr(dst.B.handle), 1, uintptr(unsafe.Pointer(&r.copyReg)))
}

// Fill records setting every 32-bit word of dst to v.
func (r *Recorder) Fill(dst Region, v uint32) {
	if !r.recording {
		r.fail(errors.New("vulkan: Fill outside Begin/Submit"))
		return
	}
	r.call(r.d.fn.cmdFillBuffer, uintptr(r.cb), uintptr(dst.B.handle), uintptr(dst.Off), uintptr(dst.Size&^3), uintptr(v))
}

// Submit ends recording, submits the command buffer, waits for it to
// finish and returns the first error of recording or execution. Results
// in host buffers are readable when it returns.
func (r *Recorder) Submit() error {
	if !r.recording {
		return errors.New("vulkan: Submit without Begin")
	}
	r.memoryBarrier(stageComputeShader|stageTransfer, stageHost, accessShaderWrite|accessTransferWrite, accessHostRead)
	r.recording = false
	cb := uintptr(r.cb)
	if err := check("vkEndCommandBuffer", r.call(r.d.fn.endCommandBuffer, cb)); err != nil {
		r.fail(err)
	}
	if r.err != nil {
		r.call(r.d.fn.resetCommandBuffer, cb, 0)
		return r.err
	}
	err := r.run()
	if err == nil && r.reuse {
		r.replayable = true
		return nil
	}
	r.call(r.d.fn.resetCommandBuffer, cb, 0)
	return err
}

// run submits the recorded command buffer and waits for it.
func (r *Recorder) run() error {
	h := uintptr(r.d.handle)
	r.d.submitMu.Lock()
	err := check("vkQueueSubmit", r.call(r.d.fn.queueSubmit, uintptr(r.d.queue), 1, uintptr(unsafe.Pointer(&r.submit)), uintptr(r.fence)))
	r.d.submitMu.Unlock()
	if err == nil {
		err = check("vkWaitForFences", r.call(r.d.fn.waitForFences, h, 1, uintptr(unsafe.Pointer(&r.fence)), 1, uintptr(^uint64(0))))
		if e := check("vkResetFences", r.call(r.d.fn.resetFences, h, 1, uintptr(unsafe.Pointer(&r.fence)))); err == nil {
			err = e
		}
	}
	return err
}

// Reusable makes the recorder keep each successful recording so that
// Replay can submit it again: a step whose shape is unchanged (a decode
// step after a decode step) then costs one submit instead of a recording
// of every op. Everything that changes between such steps must live in
// buffers (token tables, positions), not in push constants or dispatch
// sizes. Call it before the first Begin.
func (r *Recorder) Reusable() {
	r.reuse = true
	r.begin.flags = 0 // the buffer is submitted more than once
}

// Replayable reports whether Replay can run the last recording.
func (r *Recorder) Replayable() bool { return r.replayable && !r.recording }

// Replay submits the last successful recording again and waits for it.
func (r *Recorder) Replay() error {
	if !r.Replayable() {
		return errors.New("vulkan: nothing to replay")
	}
	if err := r.run(); err != nil {
		r.replayable = false
		r.call(r.d.fn.resetCommandBuffer, uintptr(r.cb), 0)
		return err
	}
	return nil
}

// descriptorSet returns the cached set for the bindings, writing a new one
// on first use.
func (r *Recorder) descriptorSet(l *setLayout, regions []Region) (vkDescriptorSet, error) {
	var key setKey
	key.n = l.n
	for i, g := range regions {
		if g.B == nil || g.B.handle == 0 {
			return 0, fmt.Errorf("vulkan: binding %d has no buffer", i)
		}
		if g.Size == 0 || g.Off+g.Size > g.B.size || g.Off%r.d.offsetAlign() != 0 || g.Size > r.d.maxRange() {
			return 0, fmt.Errorf("vulkan: binding %d: %d bytes at %d of a %d-byte buffer (offset alignment %d, range limit %d)",
				i, g.Size, g.Off, g.B.size, r.d.offsetAlign(), r.d.maxRange())
		}
		key.bind[i] = struct{ id, off, size uint64 }{g.B.id, g.Off, g.Size}
	}
	if s, ok := r.sets[key]; ok {
		return s, nil
	}
	if r.left == 0 {
		if err := r.newPool(); err != nil {
			return 0, err
		}
	}
	r.alloc = vkDescriptorSetAllocateInfo{sType: stDescriptorSetAllocateInfo, descriptorPool: r.pools[len(r.pools)-1],
		descriptorSetCount: 1, pSetLayouts: unsafe.Pointer(&l.setLayout)}
	if err := check("vkAllocateDescriptorSets", r.call(r.d.fn.allocateDescriptorSets, uintptr(r.d.handle), uintptr(unsafe.Pointer(&r.alloc)), uintptr(unsafe.Pointer(&r.newSet)))); err != nil {
		return 0, err
	}
	s := r.newSet
	r.left--
	for i, g := range regions {
		r.infos[i] = vkDescriptorBufferInfo{buffer: g.B.handle, offset: g.Off, size: g.Size}
		r.writes[i] = vkWriteDescriptorSet{sType: stWriteDescriptorSet, dstSet: s, dstBinding: uint32(i), descriptorCount: 1,
			descriptorType: descriptorStorageBuffer, pBufferInfo: unsafe.Pointer(&r.infos[i])}
	}
	r.call(r.d.fn.updateDescriptorSets, uintptr(r.d.handle), uintptr(len(regions)), uintptr(unsafe.Pointer(&r.writes[0])), 0, 0)
	r.sets[key] = s
	return s, nil
}

// newPool adds a descriptor pool for setsPerPool sets of up to maxBindings
// storage buffers.
func (r *Recorder) newPool() error {
	size := &vkDescriptorPoolSize{typ: descriptorStorageBuffer, descriptorCount: setsPerPool * maxBindings}
	ci := &vkDescriptorPoolCreateInfo{sType: stDescriptorPoolCreateInfo, maxSets: setsPerPool, poolSizeCount: 1, pPoolSizes: unsafe.Pointer(size)}
	var p vkDescriptorPool
	if err := check("vkCreateDescriptorPool", call(r.d.fn.createDescriptorPool, uintptr(r.d.handle), uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&p)))); err != nil {
		return err
	}
	r.pools, r.left = append(r.pools, p), setsPerPool
	return nil
}
