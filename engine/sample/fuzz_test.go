package sample

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzSampler builds samplers from arbitrary parameters (every stage,
// any order, extreme values) and samples a few rows, some with NaN and
// infinite logits: New refuses or the sampler returns ids in range,
// without panicking.
func FuzzSampler(f *testing.F) {
	f.Add([]byte("edskypmxt\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add([]byte("a\x02\xff\xff\xff\xff\x00\x00\x80\x7f\x00\x00\xc0\x7f"))
	f.Add([]byte("tkpm\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := byteReader{data}
		p := DefaultParams()
		p.NCtx = 64
		if seq, err := ParseSamplingSeq(r.letters()); err == nil && r.bit() {
			p.Samplers = seq
		}
		p.Temp, p.TopK, p.TopP, p.MinP = r.f32(), int(r.i8()), r.f32(), r.f32()
		p.TypicalP, p.MinKeep, p.TopNSigma = r.f32(), int(r.i8()), r.f32()
		p.DynatempRange, p.DynatempExponent = r.f32(), r.f32()
		p.Mirostat, p.MirostatTau, p.MirostatEta = int(r.i8()%3), r.f32(), r.f32()
		p.DryMultiplier, p.DryBase, p.DryAllowedLength, p.DryPenaltyLastN = r.f32(), r.f32(), int(r.i8()), int(r.i8())
		p.XTCProbability, p.XTCThreshold = r.f32(), r.f32()
		p.AdaptiveTarget, p.AdaptiveDecay = r.f32(), r.f32()
		p.RepeatPenalty, p.RepeatLastN, p.FrequencyPenalty = r.f32(), int(r.i8()), r.f32()
		p.DryBreakers = BreakersFromTokens([][]int32{{int32(r.i8())}, {int32(r.i8()), int32(r.i8())}})
		for range r.i8() % 4 {
			p.LogitBias = append(p.LogitBias, LogitBias{int32(r.i8()), r.f32()})
		}
		p.Seed = 7
		const n = 50
		s, err := New(p, n)
		if err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(len(data)), 1))
		for step := range 6 {
			l := randomLogits(rng, n)
			l[rng.IntN(n)] = float32(math.NaN())
			l[rng.IntN(n)] = float32(math.Inf(1 - 2*(step%2)))
			if tok := s.Sample(l); tok < 0 || tok >= n {
				t.Fatalf("sampled %d", tok)
			}
			s.Distribution(l)
			s.Accept(int32(step % 5))
		}
	})
}

// byteReader hands out fuzz bytes as parameter values (zeros past the end).
type byteReader struct{ b []byte }

func (r *byteReader) next(n int) []byte {
	out := make([]byte, n)
	copy(out, r.b)
	r.b = r.b[min(n, len(r.b)):]
	return out
}

func (r *byteReader) f32() float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(r.next(4)))
}
func (r *byteReader) i8() int8  { return int8(r.next(1)[0]) }
func (r *byteReader) bit() bool { return r.next(1)[0]&1 == 1 }

// letters reads up to 8 bytes as a --sampling-seq string.
func (r *byteReader) letters() string {
	n := int(r.next(1)[0] % 9)
	return string(r.next(n))
}
