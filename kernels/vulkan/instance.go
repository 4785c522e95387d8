//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// instance is the process's Vulkan instance: the loader is opened and the
// instance created once, on first use, and kept for the process's life
// (drivers do not like instances created and destroyed repeatedly, and a
// purego callback cannot be freed).
type instance struct {
	g        globalFns
	fn       instanceFns
	handle   vkInstance
	validate bool
	devices  []physicalDevice
}

var (
	instOnce sync.Once
	inst     *instance
	instErr  error
)

// getInstance returns the process's instance, creating it on first use.
func getInstance() (*instance, error) {
	instOnce.Do(func() { inst, instErr = newInstance() })
	return inst, instErr
}

// ValidationEnv is the environment variable that turns on the Khronos
// validation layer (any non-empty value other than 0); messages are
// collected for ValidationMessages. It is read when the first device is
// opened.
const ValidationEnv = "WAGGLE_VK_VALIDATE"

const validationLayer = "VK_LAYER_KHRONOS_validation"

func newInstance() (*instance, error) {
	gipa, err := openLoader()
	if err != nil {
		return nil, err
	}
	in := &instance{validate: os.Getenv(ValidationEnv) != "" && os.Getenv(ValidationEnv) != "0"}
	in.g.getInstanceProcAddr = gipa
	get := func(name *byte) uintptr { return call(gipa, 0, uintptr(unsafe.Pointer(name))) }
	if err := resolve(get, []entry{
		{"vkCreateInstance", &in.g.createInstance},
		{"vkEnumerateInstanceLayerProperties", &in.g.enumerateInstanceLayerProperties},
	}); err != nil {
		return nil, err
	}
	if in.validate && !in.hasLayer(validationLayer) {
		return nil, fmt.Errorf("vulkan: %s is set but the layer %s is not installed (Debian: vulkan-validationlayers)", ValidationEnv, validationLayer)
	}
	if err := in.create(); err != nil {
		return nil, err
	}
	get = func(name *byte) uintptr { return call(gipa, uintptr(in.handle), uintptr(unsafe.Pointer(name))) }
	if err := resolve(get, in.fn.entries()); err != nil {
		return nil, err
	}
	if in.validate {
		if err := in.installMessenger(get); err != nil {
			return nil, err
		}
	}
	if err := in.enumerate(); err != nil {
		return nil, err
	}
	return in, nil
}

// hasLayer reports whether an instance layer is installed.
func (in *instance) hasLayer(name string) bool {
	var n uint32
	if check("vkEnumerateInstanceLayerProperties", call(in.g.enumerateInstanceLayerProperties, uintptr(unsafe.Pointer(&n)), 0)) != nil || n == 0 {
		return false
	}
	props := make([]vkLayerProperties, n)
	if check("vkEnumerateInstanceLayerProperties", call(in.g.enumerateInstanceLayerProperties, uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&props[0])))) != nil {
		return false
	}
	for _, p := range props[:n] {
		if gostr(p.layerName[:]) == name {
			return true
		}
	}
	return false
}

// create makes the VkInstance (API 1.1, the validation layer and debug
// utils when validating, portability enumeration on macOS).
func (in *instance) create() error {
	app := &vkApplicationInfo{
		sType: stApplicationInfo, pApplicationName: unsafe.Pointer(cstr("waggle")),
		pEngineName: unsafe.Pointer(cstr("waggle")), apiVersion: apiVersion11,
	}
	ci := &vkInstanceCreateInfo{sType: stInstanceCreateInfo, pApplicationInfo: unsafe.Pointer(app)}
	var layers, exts []*byte
	if in.validate {
		layers = append(layers, cstr(validationLayer))
		exts = append(exts, cstr("VK_EXT_debug_utils"))
	}
	if runtime.GOOS == "darwin" {
		exts = append(exts, cstr("VK_KHR_portability_enumeration"))
		ci.flags = 0x1 // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
	}
	if len(layers) > 0 {
		ci.enabledLayerCount, ci.ppEnabledLayerNames = uint32(len(layers)), unsafe.Pointer(&layers[0])
	}
	if len(exts) > 0 {
		ci.enabledExtensionCount, ci.ppEnabledExtensionNames = uint32(len(exts)), unsafe.Pointer(&exts[0])
	}
	if err := check("vkCreateInstance", call(in.g.createInstance, uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&in.handle)))); err != nil {
		return fmt.Errorf("%w (is a Vulkan driver installed? Debian: mesa-vulkan-drivers)", err)
	}
	return nil
}

// validation collects the validation layer's messages.
var validation struct {
	sync.Mutex
	msgs []string
}

// ValidationMessages returns and clears the warnings and errors the
// validation layer reported since the last call (none unless
// WAGGLE_VK_VALIDATE was set when the first device was opened).
func ValidationMessages() []string {
	validation.Lock()
	defer validation.Unlock()
	m := validation.msgs
	validation.msgs = nil
	return m
}

// ValidationEnabled reports whether the validation layer is active.
func ValidationEnabled() bool {
	in, err := getInstance()
	return err == nil && in.validate
}

// debugCallback is the VkDebugUtilsMessengerCallbackEXT.
func debugCallback(severity, types uintptr, data *vkDebugUtilsMessengerCallbackData, _ uintptr) uintptr {
	msg := fmt.Sprintf("severity %#x: %s", severity, gostrPtr(data.pMessage))
	validation.Lock()
	validation.msgs = append(validation.msgs, msg)
	validation.Unlock()
	return 0 // VK_FALSE: do not abort the call
}

var debugCallbackPtr = sync.OnceValue(func() uintptr { return purego.NewCallback(debugCallback) })

// installMessenger routes validation warnings and errors to debugCallback.
func (in *instance) installMessenger(get func(*byte) uintptr) error {
	var create uintptr
	if err := resolve(get, []entry{{"vkCreateDebugUtilsMessengerEXT", &create}}); err != nil {
		return err
	}
	ci := &vkDebugUtilsMessengerCreateInfo{
		sType:           stDebugUtilsMessengerCreateEXT,
		messageSeverity: debugSeverityWarning | debugSeverityError,
		messageType:     debugTypeGeneral | debugTypeValidation,
		pfnUserCallback: debugCallbackPtr(),
	}
	var m vkDebugMessenger
	return check("vkCreateDebugUtilsMessengerEXT", call(create, uintptr(in.handle), uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&m))))
}

// physicalDevice is one enumerated device with what device choice needs.
type physicalDevice struct {
	handle vkPhysicalDevice
	props  vkPhysicalDeviceProperties
	mem    vkPhysicalDeviceMemoryProperties
	family int // a queue family with compute, -1 if none
}

func (p *physicalDevice) name() string { return gostr(p.props.deviceName[:]) }

func (in *instance) enumerate() error {
	var n uint32
	if err := check("vkEnumeratePhysicalDevices", call(in.fn.enumeratePhysicalDevices, uintptr(in.handle), uintptr(unsafe.Pointer(&n)), 0)); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	hs := make([]vkPhysicalDevice, n)
	if err := check("vkEnumeratePhysicalDevices", call(in.fn.enumeratePhysicalDevices, uintptr(in.handle), uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&hs[0])))); err != nil {
		return err
	}
	in.devices = make([]physicalDevice, n)
	for i, h := range hs[:n] {
		d := &in.devices[i]
		d.handle = h
		call(in.fn.getPhysicalDeviceProperties, uintptr(h), uintptr(unsafe.Pointer(&d.props)))
		call(in.fn.getPhysicalDeviceMemoryProperties, uintptr(h), uintptr(unsafe.Pointer(&d.mem)))
		d.family = in.computeFamily(h)
	}
	return nil
}

// computeFamily returns a queue family that supports compute, or -1.
func (in *instance) computeFamily(h vkPhysicalDevice) int {
	var n uint32
	call(in.fn.getPhysicalDeviceQueueFamilyProps, uintptr(h), uintptr(unsafe.Pointer(&n)), 0)
	if n == 0 {
		return -1
	}
	fams := make([]vkQueueFamilyProperties, n)
	call(in.fn.getPhysicalDeviceQueueFamilyProps, uintptr(h), uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&fams[0])))
	for i, f := range fams[:n] {
		if f.queueFlags&queueCompute != 0 && f.queueCount > 0 {
			return i
		}
	}
	return -1
}

// DeviceInfo describes an enumerated Vulkan device.
type DeviceInfo struct {
	Index int
	Name  string
	Type  string // "discrete", "integrated", "virtual", "cpu" or "other"
	// MaxStorageBufferRange is the largest range one binding may cover; the
	// weight arena splits tensors at it.
	MaxStorageBufferRange uint64
}

var typeNames = [...]string{"other", "integrated", "discrete", "virtual", "cpu"}

func (p *physicalDevice) info(i int) DeviceInfo {
	t := "other"
	if int(p.props.deviceType) < len(typeNames) {
		t = typeNames[p.props.deviceType]
	}
	return DeviceInfo{Index: i, Name: p.name(), Type: t, MaxStorageBufferRange: uint64(p.props.limits.maxStorageBufferRange)}
}

// Devices lists the Vulkan devices, or says why there are none to list.
func Devices() ([]DeviceInfo, error) {
	in, err := getInstance()
	if err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, len(in.devices))
	for i := range in.devices {
		out[i] = in.devices[i].info(i)
	}
	return out, nil
}

// DeviceEnv is the environment variable that selects a device by index or
// by a case-insensitive substring of its name. It is the only way to use a
// CPU-type device (such as Mesa's lavapipe), which automatic choice skips.
const DeviceEnv = "WAGGLE_VK_DEVICE"

// choose picks a device: sel (an index, "VulkanN", or a name substring;
// empty: $WAGGLE_VK_DEVICE, then automatic). Automatic choice prefers
// discrete, then integrated, then virtual and other GPUs, skips CPU-type
// devices and devices without a compute queue.
func (in *instance) choose(sel string) (int, error) {
	if sel == "" {
		sel = os.Getenv(DeviceEnv)
	}
	if sel != "" {
		return in.byName(sel)
	}
	rank := map[uint32]int{physicalDeviceTypeDiscrete: 4, physicalDeviceTypeIntegrated: 3, physicalDeviceTypeVirtual: 2, physicalDeviceTypeOther: 1}
	best, bestRank := -1, 0
	var skipped []string
	for i := range in.devices {
		d := &in.devices[i]
		r := rank[d.props.deviceType]
		if r == 0 || d.family < 0 {
			skipped = append(skipped, fmt.Sprintf("%d: %s (%s)", i, d.name(), d.info(i).Type))
			continue
		}
		if r > bestRank {
			best, bestRank = i, r
		}
	}
	if best < 0 {
		if len(skipped) > 0 {
			return -1, fmt.Errorf("vulkan: no GPU found; skipped %s (set %s=<index> to use a CPU device anyway)", strings.Join(skipped, ", "), DeviceEnv)
		}
		return -1, fmt.Errorf("vulkan: no Vulkan device found (is a driver installed?)")
	}
	return best, nil
}

// byName resolves an explicit device selection.
func (in *instance) byName(sel string) (int, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(sel, "Vulkan"), "vulkan")
	var idx int
	if _, err := fmt.Sscanf(s, "%d", &idx); err == nil && fmt.Sprint(idx) == s {
		if idx < 0 || idx >= len(in.devices) {
			return -1, fmt.Errorf("vulkan: device %d out of range (%d devices)", idx, len(in.devices))
		}
		if in.devices[idx].family < 0 {
			return -1, fmt.Errorf("vulkan: device %d (%s) has no compute queue", idx, in.devices[idx].name())
		}
		return idx, nil
	}
	for i := range in.devices {
		if strings.Contains(strings.ToLower(in.devices[i].name()), strings.ToLower(sel)) && in.devices[i].family >= 0 {
			return i, nil
		}
	}
	return -1, fmt.Errorf("vulkan: no device matches %q", sel)
}
