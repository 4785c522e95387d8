package quantize

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/waggle-llm/waggle/gguf"
)

// OutTensor describes one tensor of a file being streamed.
type OutTensor struct {
	Name string
	Type gguf.Type
	Dims []int64 // ggml order: Dims[0] is the row length
}

// Size returns the tensor's bytes.
func (t *OutTensor) Size() (int64, error) {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return t.Type.RowBytes(n)
}

// errHeaderDone stops gguf.Writer once the header has been copied.
var errHeaderDone = errors.New("quant: header written")

// WriteStreamed writes a GGUF v3 file: the metadata kvs and the tensor table
// laid out by gguf.Writer (so the header is byte-identical to what
// gguf.Writer would write), then each tensor's data as fill(i, w) produces
// it, padded to the alignment. fill must write exactly the tensor's size.
//
// gguf.Writer wants every tensor's bytes up front; to stream, the header is
// rendered with a shared all-zero placeholder that is never read (a counting
// pass measures the header, a second pass copies only the header).
// TODO(lead): a gguf.Writer method that takes a data callback would remove
// the placeholder.
func WriteStreamed(out io.Writer, alignment int64, kvs []gguf.KV, tensors []OutTensor, fill func(i int, w io.Writer) error) error {
	gw := gguf.NewWriter(alignment)
	if alignment == 0 {
		alignment = gguf.DefaultAlignment
	}
	for _, kv := range kvs {
		gw.AddKV(kv.Key, kv.Value)
	}
	sizes := make([]int64, len(tensors))
	var maxSize, dataLen int64
	for i := range tensors {
		s, err := tensors[i].Size()
		if err != nil {
			return fmt.Errorf("tensor %s: %w", tensors[i].Name, err)
		}
		sizes[i], maxSize = s, max(maxSize, s)
		dataLen = alignUp(dataLen, alignment) + s
	}
	dataLen = alignUp(dataLen, alignment)
	placeholder := make([]byte, maxSize) // untouched: the OS maps it lazily
	for i := range tensors {
		if err := gw.AddTensor(tensors[i].Name, tensors[i].Type, tensors[i].Dims, placeholder[:sizes[i]]); err != nil {
			return err
		}
	}
	var cw countWriter
	if _, err := gw.WriteTo(&cw); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	if _, err := gw.WriteTo(&limitWriter{w: bw, n: cw.n - dataLen}); !errors.Is(err, errHeaderDone) {
		return fmt.Errorf("quant: writing the header: %v", err)
	}
	for i := range tensors {
		tw := &countWriter{w: bw}
		if err := fill(i, tw); err != nil {
			return fmt.Errorf("tensor %s: %w", tensors[i].Name, err)
		}
		if tw.n != sizes[i] {
			return fmt.Errorf("tensor %s: produced %d bytes, want %d", tensors[i].Name, tw.n, sizes[i])
		}
		if _, err := bw.Write(make([]byte, alignUp(sizes[i], alignment)-sizes[i])); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// countWriter counts bytes, passing them to w when w is set (never reading
// them otherwise).
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if c.w == nil {
		return len(p), nil
	}
	return c.w.Write(p)
}

// limitWriter passes the first n bytes to w, then fails with errHeaderDone.
type limitWriter struct {
	w io.Writer
	n int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHeaderDone
	}
	k := min(int64(len(p)), l.n)
	if _, err := l.w.Write(p[:k]); err != nil {
		return 0, err
	}
	l.n -= k
	if k < int64(len(p)) {
		return int(k), errHeaderDone
	}
	return len(p), nil
}
