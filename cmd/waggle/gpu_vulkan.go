//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package main

import (
	"fmt"

	offload "github.com/waggle-llm/waggle/engine/vulkan" // registers the Vulkan offload backend
	vk "github.com/waggle-llm/waggle/kernels/vulkan"
)

// gpuAvailable says why no GPU matching device can be used (nil: one can).
func gpuAvailable(device string) error { return offload.Available(device) }

// listDevices prints the Vulkan devices.
func listDevices() error {
	devs, err := vk.Devices()
	if err != nil {
		return err
	}
	if len(devs) == 0 {
		fmt.Fprintln(stdout, "no Vulkan devices")
	}
	for _, d := range devs {
		note := ""
		if d.Type == "cpu" {
			note = " (a CPU implementation: used only when selected, e.g. WAGGLE_VK_DEVICE=" + fmt.Sprint(d.Index) + ")"
		}
		fmt.Fprintf(stdout, "Vulkan%d: %s, %s, binding limit %d MiB%s\n", d.Index, d.Name, d.Type, d.MaxStorageBufferRange>>20, note)
	}
	return nil
}
