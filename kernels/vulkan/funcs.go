//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// call invokes a Vulkan entry point. Like purego.SyscallN (and
// syscall.Syscall) it keeps the objects behind uintptr(unsafe.Pointer(…))
// arguments alive and in place for the duration of the call, but only when
// the conversion is written in the call's argument list itself (the
// compiler looks for that form; a helper that converts would hide it).
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// check turns a VkResult into an error naming the call.
func check(what string, r uintptr) error {
	res := vkResult(int32(r))
	if res == vkSuccess {
		return nil
	}
	name, ok := resultNames[res]
	if !ok {
		name = fmt.Sprintf("VkResult(%d)", int32(res))
	}
	return fmt.Errorf("vulkan: %s: %s", what, name)
}

// cstr returns a NUL-terminated copy of s on the heap.
func cstr(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// gostr reads a NUL-terminated byte array.
func gostr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// gostrPtr reads a NUL-terminated C string (nil: "").
func gostrPtr(p *byte) string {
	if p == nil {
		return ""
	}
	var n int
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// entry names one entry point and where its address goes.
type entry struct {
	name string
	fn   *uintptr
}

// resolve fills every entry through get (vkGetInstanceProcAddr or
// vkGetDeviceProcAddr bound to its handle) and fails on the first missing
// one, so no call ever jumps to address 0.
func resolve(get func(name *byte) uintptr, entries []entry) error {
	for _, e := range entries {
		p := get(cstr(e.name))
		if p == 0 {
			return fmt.Errorf("vulkan: the driver does not provide %s", e.name)
		}
		*e.fn = p
	}
	return nil
}

// globalFns are the entry points available before an instance exists.
type globalFns struct {
	getInstanceProcAddr              uintptr
	createInstance                   uintptr
	enumerateInstanceLayerProperties uintptr
}

// instanceFns are the instance-level entry points.
type instanceFns struct {
	destroyInstance                   uintptr
	enumeratePhysicalDevices          uintptr
	getPhysicalDeviceProperties       uintptr
	getPhysicalDeviceMemoryProperties uintptr
	getPhysicalDeviceQueueFamilyProps uintptr
	createDevice                      uintptr
	getDeviceProcAddr                 uintptr
}

func (f *instanceFns) entries() []entry {
	return []entry{
		{"vkDestroyInstance", &f.destroyInstance},
		{"vkEnumeratePhysicalDevices", &f.enumeratePhysicalDevices},
		{"vkGetPhysicalDeviceProperties", &f.getPhysicalDeviceProperties},
		{"vkGetPhysicalDeviceMemoryProperties", &f.getPhysicalDeviceMemoryProperties},
		{"vkGetPhysicalDeviceQueueFamilyProperties", &f.getPhysicalDeviceQueueFamilyProps},
		{"vkCreateDevice", &f.createDevice},
		{"vkGetDeviceProcAddr", &f.getDeviceProcAddr},
	}
}

// deviceFns are the device-level entry points of the compute path.
type deviceFns struct {
	destroyDevice, getDeviceQueue, deviceWaitIdle                 uintptr
	createBuffer, destroyBuffer, getBufferMemoryRequirements      uintptr
	allocateMemory, freeMemory, bindBufferMemory, mapMemory       uintptr
	createShaderModule, destroyShaderModule                       uintptr
	createComputePipelines, destroyPipeline                       uintptr
	createPipelineLayout, destroyPipelineLayout                   uintptr
	createDescriptorSetLayout, destroyDescriptorSetLayout         uintptr
	createDescriptorPool, destroyDescriptorPool                   uintptr
	allocateDescriptorSets, updateDescriptorSets                  uintptr
	createCommandPool, destroyCommandPool, allocateCommandBuffers uintptr
	beginCommandBuffer, endCommandBuffer, resetCommandBuffer      uintptr
	cmdBindPipeline, cmdBindDescriptorSets, cmdPushConstants      uintptr
	cmdDispatch, cmdPipelineBarrier, cmdCopyBuffer, cmdFillBuffer uintptr
	queueSubmit, createFence, destroyFence, waitForFences         uintptr
	resetFences                                                   uintptr
}

func (f *deviceFns) entries() []entry {
	return []entry{
		{"vkDestroyDevice", &f.destroyDevice}, {"vkGetDeviceQueue", &f.getDeviceQueue},
		{"vkDeviceWaitIdle", &f.deviceWaitIdle},
		{"vkCreateBuffer", &f.createBuffer}, {"vkDestroyBuffer", &f.destroyBuffer},
		{"vkGetBufferMemoryRequirements", &f.getBufferMemoryRequirements},
		{"vkAllocateMemory", &f.allocateMemory}, {"vkFreeMemory", &f.freeMemory},
		{"vkBindBufferMemory", &f.bindBufferMemory}, {"vkMapMemory", &f.mapMemory},
		{"vkCreateShaderModule", &f.createShaderModule}, {"vkDestroyShaderModule", &f.destroyShaderModule},
		{"vkCreateComputePipelines", &f.createComputePipelines}, {"vkDestroyPipeline", &f.destroyPipeline},
		{"vkCreatePipelineLayout", &f.createPipelineLayout}, {"vkDestroyPipelineLayout", &f.destroyPipelineLayout},
		{"vkCreateDescriptorSetLayout", &f.createDescriptorSetLayout},
		{"vkDestroyDescriptorSetLayout", &f.destroyDescriptorSetLayout},
		{"vkCreateDescriptorPool", &f.createDescriptorPool}, {"vkDestroyDescriptorPool", &f.destroyDescriptorPool},
		{"vkAllocateDescriptorSets", &f.allocateDescriptorSets}, {"vkUpdateDescriptorSets", &f.updateDescriptorSets},
		{"vkCreateCommandPool", &f.createCommandPool}, {"vkDestroyCommandPool", &f.destroyCommandPool},
		{"vkAllocateCommandBuffers", &f.allocateCommandBuffers},
		{"vkBeginCommandBuffer", &f.beginCommandBuffer}, {"vkEndCommandBuffer", &f.endCommandBuffer},
		{"vkResetCommandBuffer", &f.resetCommandBuffer},
		{"vkCmdBindPipeline", &f.cmdBindPipeline}, {"vkCmdBindDescriptorSets", &f.cmdBindDescriptorSets},
		{"vkCmdPushConstants", &f.cmdPushConstants}, {"vkCmdDispatch", &f.cmdDispatch},
		{"vkCmdPipelineBarrier", &f.cmdPipelineBarrier}, {"vkCmdCopyBuffer", &f.cmdCopyBuffer},
		{"vkCmdFillBuffer", &f.cmdFillBuffer},
		{"vkQueueSubmit", &f.queueSubmit}, {"vkCreateFence", &f.createFence},
		{"vkDestroyFence", &f.destroyFence}, {"vkWaitForFences", &f.waitForFences},
		{"vkResetFences", &f.resetFences},
	}
}
