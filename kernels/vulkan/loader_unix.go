//go:build vulkan && (amd64 || arm64) && (linux || darwin)

package vulkan

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
)

// libraryNames are the Vulkan loader's names, tried in order; the
// WAGGLE_VK_LIBRARY environment variable, when set, is tried alone.
func libraryNames() []string {
	if p := os.Getenv("WAGGLE_VK_LIBRARY"); p != "" {
		return []string{p}
	}
	if runtime.GOOS == "darwin" {
		return []string{"libvulkan.1.dylib", "libvulkan.dylib", "libMoltenVK.dylib", "/usr/local/lib/libvulkan.1.dylib", "/opt/homebrew/lib/libvulkan.1.dylib"}
	}
	return []string{"libvulkan.so.1", "libvulkan.so"}
}

// openLoader opens the Vulkan loader library and returns the address of
// vkGetInstanceProcAddr, the only symbol looked up by name.
func openLoader() (uintptr, error) {
	var errs []string
	for _, name := range libraryNames() {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		sym, err := purego.Dlsym(h, "vkGetInstanceProcAddr")
		if err != nil || sym == 0 {
			purego.Dlclose(h)
			errs = append(errs, fmt.Sprintf("%s: no vkGetInstanceProcAddr", name))
			continue
		}
		return sym, nil
	}
	return 0, errors.New("vulkan: cannot load the Vulkan loader (install libvulkan1 and a driver, or set WAGGLE_VK_LIBRARY): " + strings.Join(errs, "; "))
}
