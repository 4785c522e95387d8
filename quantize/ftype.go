// Package quantize writes quantized GGUF models the way llama.cpp's
// llama-quantize does (no importance matrix): the same per-tensor type
// choice for each file type ("mix"), the same tensor order, the same
// metadata, and, through Row (the weight quantizers of ggml-quants.c), the
// same bytes. `waggle quantize` and the bench tools (bench/gen's synthetic
// models) use it; inference never does (package kernels quantizes
// activations and KV cache rows).
//
// Files are streamed: the header is laid out with gguf.Writer, then each
// tensor is produced and written row chunk by row chunk, so converting a
// multi-gigabyte model holds one chunk per worker in memory, not the model.
package quantize

import (
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// FileType is llama.cpp's llama_ftype, stored as general.file_type.
type FileType uint32

// The file types this package writes, numbered as in llama.h.
const (
	AllF32  FileType = 0
	F16     FileType = 1
	Q4_0    FileType = 2
	Q4_1    FileType = 3
	Q8_0    FileType = 7
	Q5_0    FileType = 8
	Q5_1    FileType = 9
	Q2_K    FileType = 10
	Q3_K_S  FileType = 11
	Q3_K_M  FileType = 12
	Q3_K_L  FileType = 13
	Q4_K_S  FileType = 14
	Q4_K_M  FileType = 15
	Q5_K_S  FileType = 16
	Q5_K_M  FileType = 17
	Q6_K    FileType = 18
	BF16    FileType = 32
	invalid FileType = 1<<32 - 1
)

// fileTypes maps each file type to its name and its default tensor type
// (llama_ftype_get_default_type).
var fileTypes = []struct {
	ft   FileType
	name string
	def  gguf.Type
}{
	{AllF32, "F32", gguf.TypeF32}, {F16, "F16", gguf.TypeF16}, {BF16, "BF16", gguf.TypeBF16},
	{Q4_0, "Q4_0", gguf.TypeQ4_0}, {Q4_1, "Q4_1", gguf.TypeQ4_1}, {Q5_0, "Q5_0", gguf.TypeQ5_0},
	{Q5_1, "Q5_1", gguf.TypeQ5_1}, {Q8_0, "Q8_0", gguf.TypeQ8_0}, {Q2_K, "Q2_K", gguf.TypeQ2_K},
	{Q3_K_S, "Q3_K_S", gguf.TypeQ3_K}, {Q3_K_M, "Q3_K_M", gguf.TypeQ3_K}, {Q3_K_L, "Q3_K_L", gguf.TypeQ3_K},
	{Q4_K_S, "Q4_K_S", gguf.TypeQ4_K}, {Q4_K_M, "Q4_K_M", gguf.TypeQ4_K},
	{Q5_K_S, "Q5_K_S", gguf.TypeQ5_K}, {Q5_K_M, "Q5_K_M", gguf.TypeQ5_K}, {Q6_K, "Q6_K", gguf.TypeQ6_K},
}

// aliases are llama-quantize's short names for the medium mixes.
var aliases = map[string]FileType{"Q3_K": Q3_K_M, "Q4_K": Q4_K_M, "Q5_K": Q5_K_M}

// ParseFileType reads a llama-quantize type name, ignoring case: "Q4_K_M",
// "q8_0", "F16"; "Q4_K", "Q5_K" and "Q3_K" mean the _M mixes, as in
// llama-quantize.
func ParseFileType(s string) (FileType, error) {
	u := strings.ToUpper(s)
	if ft, ok := aliases[u]; ok {
		return ft, nil
	}
	for _, e := range fileTypes {
		if e.name == u {
			return e.ft, nil
		}
	}
	return invalid, fmt.Errorf("unknown quantization type %q (want one of %s)", s, strings.Join(FileTypeNames(), ", "))
}

// FileTypeNames lists the accepted names.
func FileTypeNames() []string {
	var names []string
	for _, e := range fileTypes {
		names = append(names, e.name)
	}
	return append(names, "Q3_K", "Q4_K", "Q5_K")
}

// String returns the llama-quantize name ("Q4_K_M").
func (ft FileType) String() string {
	for _, e := range fileTypes {
		if e.ft == ft {
			return e.name
		}
	}
	return fmt.Sprintf("ftype(%d)", uint32(ft))
}

// DefaultType returns the tensor type most tensors get.
func (ft FileType) DefaultType() gguf.Type {
	for _, e := range fileTypes {
		if e.ft == ft {
			return e.def
		}
	}
	return gguf.TypeF32
}
