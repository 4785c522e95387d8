package kvcache

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAllocAdvisesHugePages: a cell buffer of several huge pages is
// THP-eligible in /proc/self/smaps, which with the kernel's "madvise" mode
// only MADV_HUGEPAGE makes it (in "always" mode every mapping is, so the
// test cannot fail there and says so). amd64 only: CI runs arm64 under
// qemu-user, whose /proc/self/smaps shows the host's mappings, not the
// guest addresses the test looks up.
func TestAllocAdvisesHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q)", mode)
	}
	b := alloc(16 * hugePageSize)
	addr := uintptr(unsafe.Pointer(&b[8*hugePageSize]))
	eligible, err := thpEligible(addr)
	if err != nil {
		t.Fatal(err)
	}
	if !eligible {
		t.Fatalf("a %d MiB cell buffer is not THP-eligible (THP mode %q)", len(b)>>20, strings.TrimSpace(string(mode)))
	}
	if strings.Contains(string(mode), "[always]") {
		t.Log("THP mode is always: every mapping is eligible, so this run proves nothing about the advice")
	}
}

// thpEligible reads the THPeligible flag of the mapping holding addr.
func thpEligible(addr uintptr) (bool, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = addr >= lo && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "THPeligible:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "THPeligible:")) == "1", nil
		}
	}
	return false, fmt.Errorf("no THPeligible line for %#x in /proc/self/smaps", addr)
}
