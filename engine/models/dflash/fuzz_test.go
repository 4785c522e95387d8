package dflash_test

import (
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/internal/demomodel"
	"github.com/waggle-llm/waggle/internal/dflashgen"
)

// FuzzLoadDrafter feeds corrupted dflash-draft files (a small drafter for
// the demo network, bytes changed) to the loader, and what loads to the
// binding and one draft: a clear error or a result, never a panic or a
// hang. The seeds change metadata values and tensor bytes at chosen
// offsets; the fuzzer goes on from there.
func FuzzLoadDrafter(f *testing.F) {
	demo, err := demomodel.Build()
	if err != nil {
		f.Fatal(err)
	}
	target, err := engine.LoadBytes(demo)
	if err != nil {
		f.Fatal(err)
	}
	tf, err := gguf.Parse(demo)
	if err != nil {
		f.Fatal(err)
	}
	good, err := dflashgen.Build(tf, dflashgen.Options{Taps: []int{0, 1}, NLayer: 1, NFF: 64, BlockSize: 4})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, 0, byte(0))
	for _, off := range []int{24, 200, 400, 600, 800, 1200, len(good) / 2, len(good) - 8} {
		f.Add(good, off, byte(0xff))
		f.Add(good, off, byte(0x7f))
	}
	f.Fuzz(func(t *testing.T, data []byte, off int, b byte) {
		if len(data) > 1<<20 {
			return
		}
		data = append([]byte(nil), data...)
		if off >= 0 && off < len(data) {
			data[off] = b
		}
		l, err := engine.LoadBytes(data)
		if err != nil {
			return
		}
		dm, ok := l.Model.(engine.BlockDrafterModel)
		if !ok {
			return
		}
		d, err := dm.NewBlockDrafter(target.Model, engine.BlockDrafterOptions{CrossCtx: 8, NSeq: 1, MaxBlocks: 1})
		if err != nil {
			return
		}
		info := dm.Block()
		ring, err := engine.NewHiddenRing(8, info.NEmbd*len(info.Taps))
		if err != nil {
			return
		}
		ring.Append(make([]float32, ring.Width()))
		_ = d.Draft([]engine.BlockJob{{Ring: ring, Anchor: 1, N: info.BlockSize}})
	})
}
