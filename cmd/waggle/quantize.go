package main

import (
	"fmt"
	"io"
	"os"

	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/quantize"
)

// quantizeCmd is `waggle quantize in.gguf out.gguf TYPE`, llama-quantize's
// job without an importance matrix: same mixes, same tensor types, same
// bytes (see package quantize).
type quantizeCmd struct {
	In              string `arg:"" help:"Input GGUF (F32, F16 or BF16 weights)." type:"existingfile"`
	Out             string `arg:"" help:"Output GGUF."`
	Type            string `arg:"" help:"Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K_S/M/L, Q4_K_S/M (Q4_K), Q5_K_S/M (Q5_K), Q6_K, F16, BF16, F32."`
	Pure            bool   `help:"No mix: every quantizable tensor gets the type's default (llama-quantize --pure)."`
	AllowRequantize bool   `name:"allow-requantize" help:"Accept already-quantized input tensors."`
	Threads         int    `short:"t" help:"Worker threads (0: all cores)." default:"0"`
	Quiet           bool   `short:"q" help:"Do not list the tensors."`
}

func (c *quantizeCmd) Run() (err error) {
	ft, err := quantize.ParseFileType(c.Type)
	if err != nil {
		return err
	}
	in, err := gguf.Open(c.In)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(c.Out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(c.Out)
		}
	}()
	var log io.Writer = os.Stderr
	if c.Quiet {
		log = nil
	}
	if err := quantize.Model(in, out, quantize.Options{FileType: ft, Pure: c.Pure, AllowRequantize: c.AllowRequantize, Threads: c.Threads, Log: log}); err != nil {
		return err
	}
	st, err := out.Stat()
	if err == nil {
		fmt.Fprintf(os.Stderr, "waggle: wrote %s (%s, %.2f MiB, from %.2f MiB)\n", c.Out, ft, float64(st.Size())/(1<<20), float64(in.Size())/(1<<20))
	}
	return err
}
