package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// physicalCores counts the distinct thread-sibling sets of the online CPUs
// in /sys (one set per physical core), or returns 0 when /sys does not say.
// It ignores the process's affinity mask; DefaultThreads caps the result at
// runtime.NumCPU(), which honours it. Read once: the topology does not
// change while the process runs.
var physicalCores = sync.OnceValue(func() int {
	paths, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list")
	cores := map[string]bool{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		cores[strings.TrimSpace(string(b))] = true
	}
	return len(cores)
})
