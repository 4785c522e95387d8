package kvcache

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"

	"github.com/waggle-llm/waggle/kvcache/turbo"
)

// CodebookFingerprint identifies the trellis codebook a TCQ cache type
// decodes with, so a state file encoded under another codebook is refused
// instead of decoding to noise; it is 0 for every other type, whose rows
// mean the same in any build.
//
// BeeLlama's footer stores CRC32s of the TURBO_TCQ_CB* override files,
// which is 0 for its compiled-in tables and so cannot tell two builds with
// different compiled tables apart. Package turbo exports neither its
// tables nor a fingerprint, so Waggle fingerprints the decoder itself: the
// first 8 bytes of SHA-256 over the float32 bits that turbo's
// DecodeRotated (one float multiply per value, bit-exact on every target)
// produces for 256 fixed pseudo-random blocks with norm 1. Those blocks
// read every codebook entry many times over (256·128 trellis steps over at
// most 512 entries), so any change of an entry, of the state transition
// or of the packing changes the fingerprint. Computed once per type.
func CodebookFingerprint(t Type) uint64 {
	tt, err := turbo.ParseType(t.String())
	if err != nil || !tt.IsTCQ() {
		return 0
	}
	fpOnce[tt].Do(func() { fpValue[tt] = probeCodebook(tt) })
	return fpValue[tt]
}

var (
	fpOnce  = map[turbo.Type]*sync.Once{turbo.Turbo2TCQ: {}, turbo.Turbo3TCQ: {}}
	fpValue = map[turbo.Type]uint64{}
)

// probeCodebook decodes the probe blocks of a TCQ type and hashes the result.
func probeCodebook(tt turbo.Type) uint64 {
	const blocks = 256
	bb := tt.BlockBytes()
	src := make([]byte, blocks*bb)
	x := uint64(0x9E3779B97F4A7C15) // splitmix64 state: fixed, portable
	for i := range src {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		src[i] = byte(z ^ (z >> 31))
	}
	for b := range blocks {
		binary.LittleEndian.PutUint16(src[b*bb:], 0x3C00) // fp16 1.0
	}
	dst := make([]float32, blocks*turbo.BlockSize)
	if err := tt.DecodeRotated(dst, src); err != nil {
		return 0
	}
	h := sha256.New()
	var w [4]byte
	for _, v := range dst {
		binary.LittleEndian.PutUint32(w[:], math.Float32bits(v))
		h.Write(w[:])
	}
	fp := binary.LittleEndian.Uint64(h.Sum(nil))
	if fp == 0 {
		fp = 1 // 0 means "no codebook"
	}
	return fp
}
