//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Device is an opened Vulkan device with one compute queue. Weights,
// pipelines and buffers are made through it; steps are recorded and
// submitted through Recorders. A Device may be shared by several
// recorders (sessions); submits to its queue are serialised.
type Device struct {
	fn     deviceFns
	handle vkDevice
	phys   *physicalDevice
	index  int
	queue  vkQueue
	family uint32

	submitMu sync.Mutex // vkQueueSubmit needs external synchronisation

	pipeMu    sync.Mutex
	pipelines map[pipelineKey]*Kernel
	layouts   [maxBindings + 1]*setLayout
	modules   map[string]vkShaderModule

	// WorkGroup is the work-group size of the reduction shaders (a power
	// of two, 64 unless the device allows fewer invocations).
	WorkGroup int
}

// Limits the compute path depends on.
func (d *Device) maxRange() uint64 { return uint64(d.phys.props.limits.maxStorageBufferRange) }
func (d *Device) offsetAlign() uint64 {
	return max(uint64(d.phys.props.limits.minStorageBufferOffsetAlignment), 16)
}

// MaxStorageBufferRange is the largest byte range one shader binding may
// cover on this device.
func (d *Device) MaxStorageBufferRange() uint64 { return d.maxRange() }

// Name returns the device's name as the driver reports it.
func (d *Device) Name() string { return d.phys.name() }

// Index returns the device's index in Devices().
func (d *Device) Index() int { return d.index }

// Info describes the device.
func (d *Device) Info() DeviceInfo { return d.phys.info(d.index) }

// Open opens a device: sel picks it by index, "VulkanN" or a name
// substring; empty means $WAGGLE_VK_DEVICE, then the best GPU (CPU-type
// devices are skipped unless selected explicitly). A missing loader,
// driver or device gives an error that says which.
func Open(sel string) (*Device, error) {
	in, err := getInstance()
	if err != nil {
		return nil, err
	}
	idx, err := in.choose(sel)
	if err != nil {
		return nil, err
	}
	p := &in.devices[idx]
	d := &Device{phys: p, index: idx, family: uint32(p.family), pipelines: map[pipelineKey]*Kernel{}, modules: map[string]vkShaderModule{}}
	if err := d.create(in); err != nil {
		return nil, err
	}
	get := func(name *byte) uintptr {
		return call(in.fn.getDeviceProcAddr, uintptr(d.handle), uintptr(unsafe.Pointer(name)))
	}
	if err := resolve(get, d.fn.entries()); err != nil {
		return nil, err
	}
	call(d.fn.getDeviceQueue, uintptr(d.handle), uintptr(d.family), 0, uintptr(unsafe.Pointer(&d.queue)))
	d.WorkGroup = 64
	for d.WorkGroup > 1 && uint32(d.WorkGroup) > p.props.limits.maxComputeWorkGroupInvocations {
		d.WorkGroup /= 2
	}
	return d, nil
}

// create makes the logical device with one compute queue and no optional
// features (the shaders need none).
func (d *Device) create(in *instance) error {
	prio := new(float32)
	*prio = 1
	q := &vkDeviceQueueCreateInfo{sType: stDeviceQueueCreateInfo, queueFamilyIndex: d.family, queueCount: 1, pQueuePriorities: unsafe.Pointer(prio)}
	ci := &vkDeviceCreateInfo{sType: stDeviceCreateInfo, queueCreateInfoCount: 1, pQueueCreateInfos: unsafe.Pointer(q)}
	if runtime.GOOS == "darwin" { // MoltenVK: the portability subset must be enabled where offered
		ext := []*byte{cstr("VK_KHR_portability_subset")}
		ci.enabledExtensionCount, ci.ppEnabledExtensionNames = 1, unsafe.Pointer(&ext[0])
		if check("vkCreateDevice", call(in.fn.createDevice, uintptr(d.phys.handle), uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&d.handle)))) == nil {
			return nil
		}
		ci.enabledExtensionCount, ci.ppEnabledExtensionNames = 0, nil
	}
	if err := check("vkCreateDevice", call(in.fn.createDevice, uintptr(d.phys.handle), uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&d.handle)))); err != nil {
		return fmt.Errorf("%w (device %d: %s)", err, d.index, d.Name())
	}
	return nil
}

// Close waits for the device to go idle and destroys it with everything
// made through it. Buffers and recorders must not be used afterwards.
func (d *Device) Close() {
	if d == nil || d.handle == 0 {
		return
	}
	h := uintptr(d.handle)
	call(d.fn.deviceWaitIdle, h)
	for _, k := range d.pipelines {
		call(d.fn.destroyPipeline, h, uintptr(k.p.handle), 0)
	}
	for _, m := range d.modules {
		call(d.fn.destroyShaderModule, h, uintptr(m), 0)
	}
	for _, l := range d.layouts {
		if l != nil {
			call(d.fn.destroyPipelineLayout, h, uintptr(l.pipeLayout), 0)
			call(d.fn.destroyDescriptorSetLayout, h, uintptr(l.setLayout), 0)
		}
	}
	call(d.fn.destroyDevice, h, 0)
	d.handle = 0
}
