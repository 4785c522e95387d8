package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestShare: the shares of t threads are cache-line aligned, in order,
// and cover every byte of every segment exactly once.
func TestShare(t *testing.T) {
	b := &buffer{segs: [][]byte{make([]byte, 1000), make([]byte, 77), make([]byte, 4096+13)}}
	for i, s := range b.segs {
		for j := range s {
			s[j] = byte(i*31 + j)
		}
	}
	var all []byte
	for _, s := range b.segs {
		all = append(all, s...)
	}
	for threads := 1; threads <= 7; threads++ {
		var got []byte
		for i := range threads {
			sh := b.share(i, threads)
			if i > 0 && len(got)%64 != 0 {
				t.Fatalf("%d threads: share %d starts at byte %d, not a cache line", threads, i, len(got))
			}
			for _, s := range sh {
				got = append(got, s...)
			}
		}
		if !bytes.Equal(got, all) {
			t.Fatalf("%d threads: shares cover %d bytes, not the buffer's %d in order", threads, len(got), len(all))
		}
	}
}

// TestReaders: both readers compute what they claim on every length
// around the unroll (so they read every byte).
func TestReaders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		b := make([]byte, n)
		var want uint64
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		for i := 0; i+8 <= n; i += 8 {
			want += uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
				uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		}
		for _, c := range b[n/8*8:] {
			want += uint64(c)
		}
		if got := readGo([][]byte{b}); got != float64(want) {
			t.Fatalf("readGo of %d bytes = %v, want %v", n, got, float64(want))
		}
	}
	ones := make([]byte, 4*1000)
	for i := 0; i < len(ones); i += 4 {
		ones[i+2], ones[i+3] = 0x80, 0x3f // float32 1.0, little-endian
	}
	if got := readVec([][]byte{ones[:4*37], ones[:4*963]}); got != 1000 {
		t.Fatalf("readVec of 1000 ones = %v", got)
	}
}

// TestRun measures a small anonymous buffer and a model's mapping and
// checks the JSON's shape (not its speed).
func TestRun(t *testing.T) {
	model := testenv.Model(t, "stories260K-f32.gguf")
	for _, c := range []config{
		{sizeMiB: 4, threads: 2, reps: 2, check: true, int8: true, json: true},
		{sizeMiB: 1, threads: 1, reps: 1, model: model, json: true},
	} {
		var out bytes.Buffer
		if err := run(&c, &out); err != nil {
			t.Fatal(err)
		}
		var res Result
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if len(res.Rows) != c.threads || res.WallGBs <= 0 || res.Bytes <= 0 {
			t.Fatalf("%+v", res)
		}
		if c.model == "" && (res.Bytes != int64(c.sizeMiB)<<20 || res.Rows[0].VecGBs <= 0 || res.Rows[0].GoCacheGBs <= 0) {
			t.Fatalf("anonymous run: %+v", res)
		}
		if c.model != "" && res.Rows[0].VecGBs != 0 {
			t.Fatalf("the vector reader ran on weight bytes: %+v", res)
		}
		if _, _, name := int8Kernel(); c.int8 && (name != "") != (res.Int8PeakGOPS > 0 && res.Int8Kernel == name) {
			t.Fatalf("int8 loop %q, result %+v", name, res)
		}
	}
}
