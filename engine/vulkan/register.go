//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"sync"

	"github.com/waggle-llm/waggle/engine"
	vk "github.com/waggle-llm/waggle/kernels/vulkan"
)

func init() { engine.RegisterOffload("Vulkan", New) }

// devices holds the opened devices by selector: a device is opened once per
// process and shared by every session that selects it.
var devices struct {
	sync.Mutex
	m map[string]*vk.Device
}

// openDevice returns the shared device for a selector ("" = automatic).
func openDevice(sel string) (*vk.Device, error) {
	devices.Lock()
	defer devices.Unlock()
	if d, ok := devices.m[sel]; ok {
		return d, nil
	}
	d, err := vk.Open(sel)
	if err != nil {
		return nil, err
	}
	if devices.m == nil {
		devices.m = map[string]*vk.Device{}
	}
	devices.m[sel] = d
	return d, nil
}

// Available reports why no device matching sel ("" = automatic choice)
// can be opened, or nil when one can; the device stays open for sessions.
func Available(sel string) error {
	_, err := openDevice(sel)
	return err
}
