//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"testing"
	"unsafe"
)

// TestStructLayout checks the Go mirrors of Vulkan structs against the
// sizes and offsets the C compiler gives for vulkan_core.h on 64-bit
// targets (gcc, Vulkan headers 1.3.239); a wrong size would pass garbage to
// the driver.
func TestStructLayout(t *testing.T) {
	sizes := []struct {
		name      string
		got, want uintptr
	}{
		{"VkApplicationInfo", unsafe.Sizeof(vkApplicationInfo{}), 48},
		{"VkInstanceCreateInfo", unsafe.Sizeof(vkInstanceCreateInfo{}), 64},
		{"VkPhysicalDeviceProperties", unsafe.Sizeof(vkPhysicalDeviceProperties{}), 824},
		{"VkPhysicalDeviceLimits", unsafe.Sizeof(vkPhysicalDeviceLimits{}), 504},
		{"VkPhysicalDeviceMemoryProperties", unsafe.Sizeof(vkPhysicalDeviceMemoryProperties{}), 520},
		{"VkQueueFamilyProperties", unsafe.Sizeof(vkQueueFamilyProperties{}), 24},
		{"VkDeviceQueueCreateInfo", unsafe.Sizeof(vkDeviceQueueCreateInfo{}), 40},
		{"VkDeviceCreateInfo", unsafe.Sizeof(vkDeviceCreateInfo{}), 72},
		{"VkBufferCreateInfo", unsafe.Sizeof(vkBufferCreateInfo{}), 56},
		{"VkMemoryRequirements", unsafe.Sizeof(vkMemoryRequirements{}), 24},
		{"VkMemoryAllocateInfo", unsafe.Sizeof(vkMemoryAllocateInfo{}), 32},
		{"VkShaderModuleCreateInfo", unsafe.Sizeof(vkShaderModuleCreateInfo{}), 40},
		{"VkSpecializationMapEntry", unsafe.Sizeof(vkSpecializationMapEntry{}), 16},
		{"VkSpecializationInfo", unsafe.Sizeof(vkSpecializationInfo{}), 32},
		{"VkPipelineShaderStageCreateInfo", unsafe.Sizeof(vkPipelineShaderStageCreateInfo{}), 48},
		{"VkComputePipelineCreateInfo", unsafe.Sizeof(vkComputePipelineCreateInfo{}), 96},
		{"VkDescriptorSetLayoutBinding", unsafe.Sizeof(vkDescriptorSetLayoutBinding{}), 24},
		{"VkDescriptorSetLayoutCreateInfo", unsafe.Sizeof(vkDescriptorSetLayoutCreateInfo{}), 32},
		{"VkPushConstantRange", unsafe.Sizeof(vkPushConstantRange{}), 12},
		{"VkPipelineLayoutCreateInfo", unsafe.Sizeof(vkPipelineLayoutCreateInfo{}), 48},
		{"VkDescriptorPoolSize", unsafe.Sizeof(vkDescriptorPoolSize{}), 8},
		{"VkDescriptorPoolCreateInfo", unsafe.Sizeof(vkDescriptorPoolCreateInfo{}), 40},
		{"VkDescriptorSetAllocateInfo", unsafe.Sizeof(vkDescriptorSetAllocateInfo{}), 40},
		{"VkDescriptorBufferInfo", unsafe.Sizeof(vkDescriptorBufferInfo{}), 24},
		{"VkWriteDescriptorSet", unsafe.Sizeof(vkWriteDescriptorSet{}), 64},
		{"VkCommandPoolCreateInfo", unsafe.Sizeof(vkCommandPoolCreateInfo{}), 24},
		{"VkCommandBufferAllocateInfo", unsafe.Sizeof(vkCommandBufferAllocateInfo{}), 32},
		{"VkCommandBufferBeginInfo", unsafe.Sizeof(vkCommandBufferBeginInfo{}), 32},
		{"VkMemoryBarrier", unsafe.Sizeof(vkMemoryBarrier{}), 24},
		{"VkBufferCopy", unsafe.Sizeof(vkBufferCopy{}), 24},
		{"VkSubmitInfo", unsafe.Sizeof(vkSubmitInfo{}), 72},
		{"VkFenceCreateInfo", unsafe.Sizeof(vkFenceCreateInfo{}), 24},
		{"VkDebugUtilsMessengerCreateInfoEXT", unsafe.Sizeof(vkDebugUtilsMessengerCreateInfo{}), 48},
		{"VkLayerProperties", unsafe.Sizeof(vkLayerProperties{}), 520},
	}
	for _, s := range sizes {
		if s.got != s.want {
			t.Errorf("sizeof(%s) = %d, C: %d", s.name, s.got, s.want)
		}
	}
	offsets := []struct {
		name      string
		got, want uintptr
	}{
		{"VkPhysicalDeviceProperties.deviceType", unsafe.Offsetof(vkPhysicalDeviceProperties{}.deviceType), 16},
		{"VkPhysicalDeviceProperties.deviceName", unsafe.Offsetof(vkPhysicalDeviceProperties{}.deviceName), 20},
		{"VkPhysicalDeviceProperties.limits", unsafe.Offsetof(vkPhysicalDeviceProperties{}.limits), 296},
		{"VkPhysicalDeviceLimits.maxStorageBufferRange", unsafe.Offsetof(vkPhysicalDeviceLimits{}.maxStorageBufferRange), 28},
		{"VkPhysicalDeviceLimits.maxComputeSharedMemorySize", unsafe.Offsetof(vkPhysicalDeviceLimits{}.maxComputeSharedMemorySize), 216},
		{"VkPhysicalDeviceLimits.maxComputeWorkGroupCount", unsafe.Offsetof(vkPhysicalDeviceLimits{}.maxComputeWorkGroupCount), 220},
		{"VkPhysicalDeviceLimits.maxComputeWorkGroupInvocations", unsafe.Offsetof(vkPhysicalDeviceLimits{}.maxComputeWorkGroupInvocations), 232},
		{"VkPhysicalDeviceLimits.minStorageBufferOffsetAlignment", unsafe.Offsetof(vkPhysicalDeviceLimits{}.minStorageBufferOffsetAlignment), 328},
		{"VkPhysicalDeviceLimits.nonCoherentAtomSize", unsafe.Offsetof(vkPhysicalDeviceLimits{}.nonCoherentAtomSize), 496},
		{"VkDebugUtilsMessengerCallbackDataEXT.pMessageIdName", unsafe.Offsetof(vkDebugUtilsMessengerCallbackData{}.pMessageIDName), 24},
		{"VkDebugUtilsMessengerCallbackDataEXT.pMessage", unsafe.Offsetof(vkDebugUtilsMessengerCallbackData{}.pMessage), 40},
	}
	for _, o := range offsets {
		if o.got != o.want {
			t.Errorf("offsetof(%s) = %d, C: %d", o.name, o.got, o.want)
		}
	}
}
