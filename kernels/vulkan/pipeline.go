//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"embed"
	"fmt"
	"unsafe"
)

//go:generate go run gen_spv.go

// spirv holds the compiled shaders (gen_spv.go writes them with glslc).
//
//go:embed spv/*.spv
var spirv embed.FS

const (
	maxBindings   = 8   // storage buffers per shader at most
	pushBytes     = 128 // push constants every device offers
	maxSpecConsts = 4
)

// Spec holds a pipeline's specialization constants (constant_id 0..3 in
// the shaders, all 32-bit). By convention constant 0 is the work-group
// size.
type Spec [maxSpecConsts]uint32

// pipelineKey identifies a compiled pipeline.
type pipelineKey struct {
	shader string
	spec   Spec
}

type pipeline struct {
	handle vkPipeline
	layout *setLayout
}

// setLayout is the descriptor set layout of n storage buffers (bindings
// 0..n-1) and the pipeline layout pairing it with pushBytes of push
// constants.
type setLayout struct {
	n          int
	setLayout  vkDescriptorSetLayout
	pipeLayout vkPipelineLayout
}

// layout returns the shared layout for n bindings, making it on first use.
// pipeMu must be held.
func (d *Device) layout(n int) (*setLayout, error) {
	if l := d.layouts[n]; l != nil {
		return l, nil
	}
	h := uintptr(d.handle)
	binds := make([]vkDescriptorSetLayoutBinding, n)
	for i := range binds {
		binds[i] = vkDescriptorSetLayoutBinding{binding: uint32(i), descriptorType: descriptorStorageBuffer, descriptorCount: 1, stageFlags: shaderStageCompute}
	}
	l := &setLayout{n: n}
	ci := &vkDescriptorSetLayoutCreateInfo{sType: stDescriptorSetLayoutInfo, bindingCount: uint32(n), pBindings: unsafe.Pointer(&binds[0])}
	if err := check("vkCreateDescriptorSetLayout", call(d.fn.createDescriptorSetLayout, h, uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&l.setLayout)))); err != nil {
		return nil, err
	}
	pc := &vkPushConstantRange{stageFlags: shaderStageCompute, size: pushBytes}
	pl := &vkPipelineLayoutCreateInfo{sType: stPipelineLayoutCreateInfo, setLayoutCount: 1, pSetLayouts: unsafe.Pointer(&l.setLayout),
		pushConstantRangeCount: 1, pPushConstantRanges: unsafe.Pointer(pc)}
	if err := check("vkCreatePipelineLayout", call(d.fn.createPipelineLayout, h, uintptr(unsafe.Pointer(pl)), 0, uintptr(unsafe.Pointer(&l.pipeLayout)))); err != nil {
		call(d.fn.destroyDescriptorSetLayout, h, uintptr(l.setLayout), 0)
		return nil, err
	}
	d.layouts[n] = l
	return l, nil
}

// module returns the shader module of an embedded shader. pipeMu must be
// held.
func (d *Device) module(name string) (vkShaderModule, error) {
	if m, ok := d.modules[name]; ok {
		return m, nil
	}
	code, err := spirv.ReadFile("spv/" + name + ".spv")
	if err != nil {
		return 0, fmt.Errorf("vulkan: no shader %q", name)
	}
	if len(code)%4 != 0 || len(code) == 0 {
		return 0, fmt.Errorf("vulkan: shader %q is not SPIR-V (%d bytes)", name, len(code))
	}
	// SPIR-V words must be 4-byte aligned; embedded bytes need not be.
	words := make([]uint32, len(code)/4)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(code)), code)
	ci := &vkShaderModuleCreateInfo{sType: stShaderModuleCreateInfo, codeSize: uintptr(len(code)), pCode: unsafe.Pointer(&words[0])}
	var m vkShaderModule
	if err := check("vkCreateShaderModule "+name, call(d.fn.createShaderModule, uintptr(d.handle), uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&m)))); err != nil {
		return 0, err
	}
	d.modules[name] = m
	return m, nil
}

// Kernel is a compute pipeline ready to dispatch: one shader with fixed
// specialization constants and a fixed number of bindings.
type Kernel struct {
	p     *pipeline
	name  string
	nBind int
}

// Kernel returns the pipeline of shader with nBind storage-buffer bindings
// and the given specialization constants, building it on first use (the
// driver compiles SPIR-V to machine code then, so a model's first step
// is slower than the rest).
func (d *Device) Kernel(shader string, nBind int, spec Spec) (*Kernel, error) {
	if nBind < 1 || nBind > maxBindings {
		return nil, fmt.Errorf("vulkan: %d bindings for %s (1..%d)", nBind, shader, maxBindings)
	}
	d.pipeMu.Lock()
	defer d.pipeMu.Unlock()
	key := pipelineKey{shader: shader, spec: spec}
	if k, ok := d.pipelines[key]; ok {
		if k.nBind != nBind {
			return nil, fmt.Errorf("vulkan: shader %s used with %d and %d bindings", shader, k.nBind, nBind)
		}
		return k, nil
	}
	l, err := d.layout(nBind)
	if err != nil {
		return nil, err
	}
	m, err := d.module(shader)
	if err != nil {
		return nil, err
	}
	entries := make([]vkSpecializationMapEntry, maxSpecConsts)
	for i := range entries {
		entries[i] = vkSpecializationMapEntry{constantID: uint32(i), offset: uint32(4 * i), size: 4}
	}
	data := new(Spec)
	*data = spec
	si := &vkSpecializationInfo{mapEntryCount: maxSpecConsts, pMapEntries: unsafe.Pointer(&entries[0]), dataSize: unsafe.Sizeof(*data), pData: unsafe.Pointer(data)}
	ci := &vkComputePipelineCreateInfo{
		sType: stComputePipelineCreateInfo,
		stage: vkPipelineShaderStageCreateInfo{sType: stPipelineShaderStageInfo, stage: shaderStageCompute, module: m,
			pName: unsafe.Pointer(cstr("main")), pSpecializationInfo: unsafe.Pointer(si)},
		layout: l.pipeLayout, basePipelineIndex: -1,
	}
	p := &pipeline{layout: l}
	if err := check("vkCreateComputePipelines "+shader, call(d.fn.createComputePipelines, uintptr(d.handle), 0, 1, uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&p.handle)))); err != nil {
		return nil, err
	}
	k := &Kernel{p: p, name: shader, nBind: nBind}
	d.pipelines[key] = k
	return k, nil
}
