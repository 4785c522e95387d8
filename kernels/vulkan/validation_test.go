//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"strings"
	"testing"
	"unsafe"
)

// TestValidationCatches makes an invalid call on purpose (a buffer of size
// 0, which the specification forbids) and expects the validation layer to
// report it, so a green op test really means "no validation message".
func TestValidationCatches(t *testing.T) {
	d := device(t)
	if !ValidationEnabled() {
		t.Skipf("validation is off (%s=0)", ValidationEnv)
	}
	ci := &vkBufferCreateInfo{sType: stBufferCreateInfo, size: 0, usage: bufferStorage}
	var b vkBuffer
	call(d.fn.createBuffer, uintptr(d.handle), uintptr(unsafe.Pointer(ci)), 0, uintptr(unsafe.Pointer(&b)))
	if b != 0 {
		call(d.fn.destroyBuffer, uintptr(d.handle), uintptr(b), 0)
	}
	msgs := ValidationMessages()
	if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), "size") {
		t.Fatalf("no validation message about the zero-size buffer: %q", msgs)
	}
}
