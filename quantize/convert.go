package quantize

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
)

// Options control Model.
type Options struct {
	FileType        FileType
	Pure            bool // --pure: no mix, every quantizable tensor gets the default type
	AllowRequantize bool // accept quantized input tensors (dequantized first, losing precision)
	Threads         int  // workers; <= 0 means GOMAXPROCS
	// Log, when set, gets one line per tensor (name, shape, old -> new type).
	Log io.Writer
}

// Model writes in as opt.FileType to out, as llama-quantize would:
// metadata copied (split keys dropped), general.quantization_version = 2 and
// general.file_type = opt.FileType appended, tensors in llama.cpp's loader
// order, each converted to the type Policy picks. Tensors already of the
// chosen type are copied unchanged.
func Model(in *gguf.File, out io.Writer, opt Options) error {
	plan, err := Plan(in, opt.FileType, opt.Pure)
	if err != nil {
		return err
	}
	for i := range plan {
		ti, _ := in.Tensor(plan[i].Name)
		if ti.Type != plan[i].Type && ti.Type.IsQuantized() && !opt.AllowRequantize {
			return fmt.Errorf("tensor %s is already %v: requantizing needs AllowRequantize", ti.Name, ti.Type)
		}
		if ti.Type != plan[i].Type && !kernels.DType(ti.Type).Supported() {
			return fmt.Errorf("tensor %s: cannot read type %v", ti.Name, ti.Type)
		}
	}
	return WriteStreamed(out, in.Alignment, outputKVs(in.KVs, opt.FileType), plan, func(i int, w io.Writer) error {
		ti, _ := in.Tensor(plan[i].Name)
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, "[%3d/%3d] %-36s %-22v %6v -> %v\n", i+1, len(plan), ti.Name, ti.Dims, ti.Type, plan[i].Type)
		}
		data := in.TensorData(ti)
		if ti.Type == plan[i].Type {
			_, err := w.Write(data)
			return err
		}
		cols := int(ti.Dims[0])
		srcRow := int(kernels.DType(ti.Type).RowBytes(cols))
		return EncodeRows(w, plan[i].Type, cols, len(data)/srcRow, opt.Threads, func(r int, dst []float32) {
			decodeRow(ti.Type, dst, data[r*srcRow:(r+1)*srcRow])
		})
	})
}

// Plan returns the output tensors of in for file type ft: llama.cpp's order
// and per-tensor types.
func Plan(in *gguf.File, ft FileType, pure bool) ([]OutTensor, error) {
	names := make([]string, len(in.Tensors))
	for i := range in.Tensors {
		names[i] = in.Tensors[i].Name
	}
	SortTensors(names)
	p := NewPolicy(ft, pure, shapeOf(in, names))
	plan := make([]OutTensor, len(names))
	for i, n := range names {
		ti, _ := in.Tensor(n)
		t, err := p.Type(n, ti.Dims, ti.Type)
		if err != nil {
			return nil, err
		}
		plan[i] = OutTensor{Name: n, Type: t, Dims: ti.Dims}
	}
	return plan, nil
}

func shapeOf(f *gguf.File, names []string) ModelShape {
	get := func(suffix string) int {
		v, _ := f.Int(f.ArchKey(suffix))
		return int(v)
	}
	return ModelShape{Arch: f.Architecture(), NLayer: get("block_count"), NHead: get("attention.head_count"),
		NHeadKV: get("attention.head_count_kv"), NExpert: get("expert_count"), Names: names}
}

// outputKVs copies kvs without the split keys and with the quantization
// version and file type moved to the end, as gguf_set_val does.
func outputKVs(kvs []gguf.KV, ft FileType) []gguf.KV {
	var out []gguf.KV
	for _, kv := range kvs {
		switch kv.Key {
		case "general.quantization_version", "general.file_type", "split.no", "split.count", "split.tensors.count":
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		gguf.KV{Key: "general.quantization_version", Value: gguf.Uint32Value(2)},
		gguf.KV{Key: "general.file_type", Value: gguf.Uint32Value(uint32(ft))})
}

// decodeRow expands one row of src (type t) into dst.
func decodeRow(t gguf.Type, dst []float32, src []byte) {
	if t == gguf.TypeF32 {
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
		return
	}
	kernels.DequantizeRow(kernels.DType(t), dst, src)
}
