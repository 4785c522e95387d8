package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/waggle-llm/waggle/gguf"
)

// inspectCmd prints a GGUF file's metadata and tensor table, like gguf-dump.
type inspectCmd struct {
	File     string `arg:"" help:"GGUF file." type:"existingfile"`
	MaxArray int    `name:"max-array" help:"Array elements shown per metadata value." default:"8"`
}

func (c *inspectCmd) Run() error {
	f, err := gguf.Open(c.File)
	if err != nil {
		return err
	}
	defer f.Close()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	fmt.Fprintf(out, "GGUF v%d, %d metadata keys, %d tensors, alignment %d, data at offset %d\n",
		f.Version, len(f.KVs), len(f.Tensors), f.Alignment, f.DataOffset)
	fmt.Fprintln(out, "\n* Metadata")
	for i, kv := range f.KVs {
		fmt.Fprintf(out, "%5d: %-8s | %-45s = %s\n", i+1, kv.Value.Type(), kv.Key, formatValue(kv.Value, c.MaxArray))
	}
	fmt.Fprintln(out, "\n* Tensors")
	fmt.Fprintf(out, "%5s  %-10s %-24s %-40s %12s %12s\n", "#", "type", "shape", "name", "offset", "bytes")
	for i := range f.Tensors {
		t := &f.Tensors[i]
		fmt.Fprintf(out, "%5d  %-10s %-24s %-40s %12d %12d\n", i+1, t.Type, shape(t.Dims), t.Name, t.Offset, t.Size)
	}
	return nil
}

func shape(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, " x ")
}

// formatValue renders a metadata value, eliding long arrays and strings.
func formatValue(v gguf.Value, maxArray int) string {
	s := v.Summary(maxArray)
	const maxLen = 200
	if len(s) > maxLen {
		s = s[:maxLen] + "…"
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}
