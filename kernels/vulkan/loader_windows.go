//go:build vulkan && (amd64 || arm64) && windows

package vulkan

import (
	"errors"
	"os"
	"syscall"
)

// openLoader loads vulkan-1.dll (or WAGGLE_VK_LIBRARY) and returns the
// address of vkGetInstanceProcAddr, the only symbol looked up by name.
func openLoader() (uintptr, error) {
	name := "vulkan-1.dll"
	if p := os.Getenv("WAGGLE_VK_LIBRARY"); p != "" {
		name = p
	}
	dll, err := syscall.LoadDLL(name)
	if err != nil {
		return 0, errors.New("vulkan: cannot load the Vulkan loader " + name + " (install a GPU driver with Vulkan support, or set WAGGLE_VK_LIBRARY): " + err.Error())
	}
	p, err := dll.FindProc("vkGetInstanceProcAddr")
	if err != nil {
		dll.Release()
		return 0, errors.New("vulkan: " + name + " has no vkGetInstanceProcAddr")
	}
	return p.Addr(), nil
}
