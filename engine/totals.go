package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// TensorTotals returns the number of weight values and the bytes of tensor
// data in a file.
func TensorTotals(f *gguf.File) (params, bytes int64) {
	for i := range f.Tensors {
		params += f.Tensors[i].NumElements()
		bytes += f.Tensors[i].Size
	}
	return params, bytes
}

// FileTypeSummary lists the tensor types of a file by count, most common
// first, e.g. "Q4_K×25 Q6_K×5 F32×9".
func FileTypeSummary(f *gguf.File) string {
	counts := map[gguf.Type]int{}
	for i := range f.Tensors {
		counts[f.Tensors[i].Type]++
	}
	types := make([]gguf.Type, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Slice(types, func(a, b int) bool {
		if counts[types[a]] != counts[types[b]] {
			return counts[types[a]] > counts[types[b]]
		}
		return types[a] < types[b]
	})
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s×%d", t, counts[t])
	}
	return strings.Join(parts, " ")
}
