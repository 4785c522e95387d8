//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import "unsafe"

// This file mirrors the parts of vulkan_core.h the compute path uses. The
// structs follow the C layout on 64-bit targets (Go aligns fields the same
// way there; vk_test.go checks every size against the C compiler's). Pointer
// fields are unsafe.Pointer so the garbage collector keeps what they point
// to alive while a call runs; the structs themselves are fields of
// long-lived objects, so passing their address allocates nothing.

// Dispatchable handles are pointers; the others are 64-bit integers.
type (
	vkInstance       uintptr
	vkPhysicalDevice uintptr
	vkDevice         uintptr
	vkQueue          uintptr
	vkCommandBuffer  uintptr

	vkBuffer              uint64
	vkDeviceMemory        uint64
	vkShaderModule        uint64
	vkPipeline            uint64
	vkPipelineLayout      uint64
	vkDescriptorSetLayout uint64
	vkDescriptorPool      uint64
	vkDescriptorSet       uint64
	vkCommandPool         uint64
	vkFence               uint64
	vkDebugMessenger      uint64
)

// vkResult is VkResult: 0 is success, positive values are non-error
// statuses, negative values are errors.
type vkResult int32

const (
	vkSuccess           vkResult = 0
	vkNotReady          vkResult = 1
	vkTimeout           vkResult = 2
	vkIncomplete        vkResult = 5
	vkErrOutOfHostMem   vkResult = -1
	vkErrOutOfDeviceMem vkResult = -2
	vkErrInitFailed     vkResult = -3
	vkErrDeviceLost     vkResult = -4
	vkErrLayerMissing   vkResult = -6
	vkErrExtMissing     vkResult = -7
	vkErrIncompatDriver vkResult = -9
)

var resultNames = map[vkResult]string{
	vkNotReady: "VK_NOT_READY", vkTimeout: "VK_TIMEOUT", vkIncomplete: "VK_INCOMPLETE",
	vkErrOutOfHostMem: "VK_ERROR_OUT_OF_HOST_MEMORY", vkErrOutOfDeviceMem: "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	vkErrInitFailed: "VK_ERROR_INITIALIZATION_FAILED", vkErrDeviceLost: "VK_ERROR_DEVICE_LOST",
	vkErrLayerMissing: "VK_ERROR_LAYER_NOT_PRESENT", vkErrExtMissing: "VK_ERROR_EXTENSION_NOT_PRESENT",
	vkErrIncompatDriver: "VK_ERROR_INCOMPATIBLE_DRIVER",
}

// Structure types (VkStructureType).
const (
	stApplicationInfo              = 0
	stInstanceCreateInfo           = 1
	stDeviceQueueCreateInfo        = 2
	stDeviceCreateInfo             = 3
	stSubmitInfo                   = 4
	stMemoryAllocateInfo           = 5
	stFenceCreateInfo              = 8
	stBufferCreateInfo             = 12
	stShaderModuleCreateInfo       = 16
	stPipelineShaderStageInfo      = 18
	stComputePipelineCreateInfo    = 29
	stPipelineLayoutCreateInfo     = 30
	stDescriptorSetLayoutInfo      = 32
	stDescriptorPoolCreateInfo     = 33
	stDescriptorSetAllocateInfo    = 34
	stWriteDescriptorSet           = 35
	stCommandPoolCreateInfo        = 39
	stCommandBufferAllocateInfo    = 40
	stCommandBufferBeginInfo       = 42
	stMemoryBarrier                = 46
	stDebugUtilsMessengerCreateEXT = 1000128004
)

// Flags and enumerants.
const (
	apiVersion11 = 1<<22 | 1<<12 // VK_API_VERSION_1_1

	physicalDeviceTypeOther      = 0
	physicalDeviceTypeIntegrated = 1
	physicalDeviceTypeDiscrete   = 2
	physicalDeviceTypeVirtual    = 3
	physicalDeviceTypeCPU        = 4

	queueCompute = 0x2

	memDeviceLocal  = 0x1
	memHostVisible  = 0x2
	memHostCoherent = 0x4
	memHostCached   = 0x8

	bufferTransferSrc = 0x1
	bufferTransferDst = 0x2
	bufferStorage     = 0x20

	descriptorStorageBuffer   = 7
	shaderStageCompute        = 0x20
	pipelineBindPointCompute  = 1
	commandBufferLevelPrimary = 0
	cmdBufferOneTimeSubmit    = 0x1
	cmdPoolResetCommandBuffer = 0x2
	descriptorPoolFreeSet     = 0x1

	stageTransfer       = 0x1000
	stageComputeShader  = 0x800
	stageHost           = 0x4000
	accessShaderRead    = 0x20
	accessShaderWrite   = 0x40
	accessTransferRead  = 0x800
	accessTransferWrite = 0x1000
	accessHostRead      = 0x2000
	accessHostWrite     = 0x4000

	debugSeverityWarning = 0x100
	debugSeverityError   = 0x1000
	debugTypeGeneral     = 0x1
	debugTypeValidation  = 0x2
	debugTypePerformance = 0x4

	wholeSize = ^uint64(0)
)

type vkApplicationInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	pApplicationName   unsafe.Pointer
	applicationVersion uint32
	pEngineName        unsafe.Pointer
	engineVersion      uint32
	apiVersion         uint32
}

type vkInstanceCreateInfo struct {
	sType                   uint32
	pNext                   unsafe.Pointer
	flags                   uint32
	pApplicationInfo        unsafe.Pointer
	enabledLayerCount       uint32
	ppEnabledLayerNames     unsafe.Pointer
	enabledExtensionCount   uint32
	ppEnabledExtensionNames unsafe.Pointer
}

// vkPhysicalDeviceLimits is VkPhysicalDeviceLimits, field by field.
type vkPhysicalDeviceLimits struct {
	maxImageDimension1D                             uint32
	maxImageDimension2D                             uint32
	maxImageDimension3D                             uint32
	maxImageDimensionCube                           uint32
	maxImageArrayLayers                             uint32
	maxTexelBufferElements                          uint32
	maxUniformBufferRange                           uint32
	maxStorageBufferRange                           uint32
	maxPushConstantsSize                            uint32
	maxMemoryAllocationCount                        uint32
	maxSamplerAllocationCount                       uint32
	bufferImageGranularity                          uint64
	sparseAddressSpaceSize                          uint64
	maxBoundDescriptorSets                          uint32
	maxPerStageDescriptorSamplers                   uint32
	maxPerStageDescriptorUniformBuffers             uint32
	maxPerStageDescriptorStorageBuffers             uint32
	maxPerStageDescriptorSampledImages              uint32
	maxPerStageDescriptorStorageImages              uint32
	maxPerStageDescriptorInputAttachments           uint32
	maxPerStageResources                            uint32
	maxDescriptorSetSamplers                        uint32
	maxDescriptorSetUniformBuffers                  uint32
	maxDescriptorSetUniformBuffersDynamic           uint32
	maxDescriptorSetStorageBuffers                  uint32
	maxDescriptorSetStorageBuffersDynamic           uint32
	maxDescriptorSetSampledImages                   uint32
	maxDescriptorSetStorageImages                   uint32
	maxDescriptorSetInputAttachments                uint32
	maxVertexInputAttributes                        uint32
	maxVertexInputBindings                          uint32
	maxVertexInputAttributeOffset                   uint32
	maxVertexInputBindingStride                     uint32
	maxVertexOutputComponents                       uint32
	maxTessellationGenerationLevel                  uint32
	maxTessellationPatchSize                        uint32
	maxTessellationControlPerVertexInputComponents  uint32
	maxTessellationControlPerVertexOutputComponents uint32
	maxTessellationControlPerPatchOutputComponents  uint32
	maxTessellationControlTotalOutputComponents     uint32
	maxTessellationEvaluationInputComponents        uint32
	maxTessellationEvaluationOutputComponents       uint32
	maxGeometryShaderInvocations                    uint32
	maxGeometryInputComponents                      uint32
	maxGeometryOutputComponents                     uint32
	maxGeometryOutputVertices                       uint32
	maxGeometryTotalOutputComponents                uint32
	maxFragmentInputComponents                      uint32
	maxFragmentOutputAttachments                    uint32
	maxFragmentDualSrcAttachments                   uint32
	maxFragmentCombinedOutputResources              uint32
	maxComputeSharedMemorySize                      uint32
	maxComputeWorkGroupCount                        [3]uint32
	maxComputeWorkGroupInvocations                  uint32
	maxComputeWorkGroupSize                         [3]uint32
	subPixelPrecisionBits                           uint32
	subTexelPrecisionBits                           uint32
	mipmapPrecisionBits                             uint32
	maxDrawIndexedIndexValue                        uint32
	maxDrawIndirectCount                            uint32
	maxSamplerLodBias                               float32
	maxSamplerAnisotropy                            float32
	maxViewports                                    uint32
	maxViewportDimensions                           [2]uint32
	viewportBoundsRange                             [2]float32
	viewportSubPixelBits                            uint32
	minMemoryMapAlignment                           uintptr
	minTexelBufferOffsetAlignment                   uint64
	minUniformBufferOffsetAlignment                 uint64
	minStorageBufferOffsetAlignment                 uint64
	minTexelOffset                                  int32
	maxTexelOffset                                  uint32
	minTexelGatherOffset                            int32
	maxTexelGatherOffset                            uint32
	minInterpolationOffset                          float32
	maxInterpolationOffset                          float32
	subPixelInterpolationOffsetBits                 uint32
	maxFramebufferWidth                             uint32
	maxFramebufferHeight                            uint32
	maxFramebufferLayers                            uint32
	framebufferColorSampleCounts                    uint32
	framebufferDepthSampleCounts                    uint32
	framebufferStencilSampleCounts                  uint32
	framebufferNoAttachmentsSampleCounts            uint32
	maxColorAttachments                             uint32
	sampledImageColorSampleCounts                   uint32
	sampledImageIntegerSampleCounts                 uint32
	sampledImageDepthSampleCounts                   uint32
	sampledImageStencilSampleCounts                 uint32
	storageImageSampleCounts                        uint32
	maxSampleMaskWords                              uint32
	timestampComputeAndGraphics                     uint32
	timestampPeriod                                 float32
	maxClipDistances                                uint32
	maxCullDistances                                uint32
	maxCombinedClipAndCullDistances                 uint32
	discreteQueuePriorities                         uint32
	pointSizeRange                                  [2]float32
	lineWidthRange                                  [2]float32
	pointSizeGranularity                            float32
	lineWidthGranularity                            float32
	strictLines                                     uint32
	standardSampleLocations                         uint32
	optimalBufferCopyOffsetAlignment                uint64
	optimalBufferCopyRowPitchAlignment              uint64
	nonCoherentAtomSize                             uint64
}

type vkPhysicalDeviceProperties struct {
	apiVersion        uint32
	driverVersion     uint32
	vendorID          uint32
	deviceID          uint32
	deviceType        uint32
	deviceName        [256]byte
	pipelineCacheUUID [16]byte
	limits            vkPhysicalDeviceLimits
	sparseProperties  [5]uint32
}

type vkMemoryType struct{ propertyFlags, heapIndex uint32 }

type vkMemoryHeap struct {
	size  uint64
	flags uint32
}

type vkPhysicalDeviceMemoryProperties struct {
	memoryTypeCount uint32
	memoryTypes     [32]vkMemoryType
	memoryHeapCount uint32
	memoryHeaps     [16]vkMemoryHeap
}

type vkQueueFamilyProperties struct {
	queueFlags                  uint32
	queueCount                  uint32
	timestampValidBits          uint32
	minImageTransferGranularity [3]uint32
}

type vkDeviceQueueCreateInfo struct {
	sType            uint32
	pNext            unsafe.Pointer
	flags            uint32
	queueFamilyIndex uint32
	queueCount       uint32
	pQueuePriorities unsafe.Pointer
}

type vkDeviceCreateInfo struct {
	sType                   uint32
	pNext                   unsafe.Pointer
	flags                   uint32
	queueCreateInfoCount    uint32
	pQueueCreateInfos       unsafe.Pointer
	enabledLayerCount       uint32
	ppEnabledLayerNames     unsafe.Pointer
	enabledExtensionCount   uint32
	ppEnabledExtensionNames unsafe.Pointer
	pEnabledFeatures        unsafe.Pointer
}

type vkBufferCreateInfo struct {
	sType                 uint32
	pNext                 unsafe.Pointer
	flags                 uint32
	size                  uint64
	usage                 uint32
	sharingMode           uint32
	queueFamilyIndexCount uint32
	pQueueFamilyIndices   unsafe.Pointer
}

type vkMemoryRequirements struct {
	size, alignment uint64
	memoryTypeBits  uint32
}

type vkMemoryAllocateInfo struct {
	sType           uint32
	pNext           unsafe.Pointer
	allocationSize  uint64
	memoryTypeIndex uint32
}

type vkShaderModuleCreateInfo struct {
	sType    uint32
	pNext    unsafe.Pointer
	flags    uint32
	codeSize uintptr
	pCode    unsafe.Pointer
}

type vkSpecializationMapEntry struct {
	constantID, offset uint32
	size               uintptr
}

type vkSpecializationInfo struct {
	mapEntryCount uint32
	pMapEntries   unsafe.Pointer
	dataSize      uintptr
	pData         unsafe.Pointer
}

type vkPipelineShaderStageCreateInfo struct {
	sType               uint32
	pNext               unsafe.Pointer
	flags               uint32
	stage               uint32
	module              vkShaderModule
	pName               unsafe.Pointer
	pSpecializationInfo unsafe.Pointer
}

type vkComputePipelineCreateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	flags              uint32
	stage              vkPipelineShaderStageCreateInfo
	layout             vkPipelineLayout
	basePipelineHandle vkPipeline
	basePipelineIndex  int32
}

type vkDescriptorSetLayoutBinding struct {
	binding            uint32
	descriptorType     uint32
	descriptorCount    uint32
	stageFlags         uint32
	pImmutableSamplers unsafe.Pointer
}

type vkDescriptorSetLayoutCreateInfo struct {
	sType        uint32
	pNext        unsafe.Pointer
	flags        uint32
	bindingCount uint32
	pBindings    unsafe.Pointer
}

type vkPushConstantRange struct{ stageFlags, offset, size uint32 }

type vkPipelineLayoutCreateInfo struct {
	sType                  uint32
	pNext                  unsafe.Pointer
	flags                  uint32
	setLayoutCount         uint32
	pSetLayouts            unsafe.Pointer
	pushConstantRangeCount uint32
	pPushConstantRanges    unsafe.Pointer
}

type vkDescriptorPoolSize struct{ typ, descriptorCount uint32 }

type vkDescriptorPoolCreateInfo struct {
	sType         uint32
	pNext         unsafe.Pointer
	flags         uint32
	maxSets       uint32
	poolSizeCount uint32
	pPoolSizes    unsafe.Pointer
}

type vkDescriptorSetAllocateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	descriptorPool     vkDescriptorPool
	descriptorSetCount uint32
	pSetLayouts        unsafe.Pointer
}

type vkDescriptorBufferInfo struct {
	buffer       vkBuffer
	offset, size uint64
}

type vkWriteDescriptorSet struct {
	sType            uint32
	pNext            unsafe.Pointer
	dstSet           vkDescriptorSet
	dstBinding       uint32
	dstArrayElement  uint32
	descriptorCount  uint32
	descriptorType   uint32
	pImageInfo       unsafe.Pointer
	pBufferInfo      unsafe.Pointer
	pTexelBufferView unsafe.Pointer
}

type vkCommandPoolCreateInfo struct {
	sType            uint32
	pNext            unsafe.Pointer
	flags            uint32
	queueFamilyIndex uint32
}

type vkCommandBufferAllocateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	commandPool        vkCommandPool
	level              uint32
	commandBufferCount uint32
}

type vkCommandBufferBeginInfo struct {
	sType            uint32
	pNext            unsafe.Pointer
	flags            uint32
	pInheritanceInfo unsafe.Pointer
}

type vkMemoryBarrier struct {
	sType         uint32
	pNext         unsafe.Pointer
	srcAccessMask uint32
	dstAccessMask uint32
}

type vkBufferCopy struct{ srcOffset, dstOffset, size uint64 }

type vkSubmitInfo struct {
	sType                uint32
	pNext                unsafe.Pointer
	waitSemaphoreCount   uint32
	pWaitSemaphores      unsafe.Pointer
	pWaitDstStageMask    unsafe.Pointer
	commandBufferCount   uint32
	pCommandBuffers      unsafe.Pointer
	signalSemaphoreCount uint32
	pSignalSemaphores    unsafe.Pointer
}

type vkFenceCreateInfo struct {
	sType uint32
	pNext unsafe.Pointer
	flags uint32
}

type vkDebugUtilsMessengerCreateInfo struct {
	sType           uint32
	pNext           unsafe.Pointer
	flags           uint32
	messageSeverity uint32
	messageType     uint32
	pfnUserCallback uintptr
	pUserData       unsafe.Pointer
}

// vkDebugUtilsMessengerCallbackData is the prefix of
// VkDebugUtilsMessengerCallbackDataEXT the callback reads.
type vkDebugUtilsMessengerCallbackData struct {
	sType           uint32
	pNext           unsafe.Pointer
	flags           uint32
	pMessageIDName  *byte
	messageIDNumber int32
	pMessage        *byte
}

type vkLayerProperties struct {
	layerName             [256]byte
	specVersion           uint32
	implementationVersion uint32
	description           [256]byte
}
