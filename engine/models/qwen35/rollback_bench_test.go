package qwen35

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
)

// BenchmarkRollback measures what each rollback strategy adds to one
// speculative cycle on the Qwen3.5-0.8B recurrent shape (18 DeltaNet
// layers, 16+16 heads of 128, conv 4; no model file needed): a verify
// batch of 1+8 tokens followed by Truncate to keep `acc` drafts.
//
//   - snapshots: during the batch, the whole state (conv window and delta
//     state of every layer) is copied after each of the first 8 tokens and
//     before the first (the copies snapConv/snapHead make); Truncate copies
//     one state back.
//   - replay: the state at the batch start is copied once into the tape's
//     base and each token's recurrence inputs (conv input, k|v, g, β: the
//     copies convRun/recordTape make) are written per layer; Truncate
//     restores the base and replays acc+1 tokens (session.replay, the real
//     code, on the session's pool).
//
// The forward pass itself (projections, attention, FFN, the per-token delta
// rule) is the same for both and is not measured. Reported: ns per cycle,
// ns per token kept (acc+1, the tokens the cycle emits), and the bytes per
// sequence each strategy holds.
func BenchmarkRollback(b *testing.B) {
	hp := hparams{nEmbd: 1024, convK: 4, dk: 128, dv: 128, hk: 16, hv: 16, interval: 4}
	hp.convDim = 2*hp.hk*hp.dk + hp.hv*hp.dv
	hp.innerDim = hp.hv * hp.dv
	const nDelta, nDraft = 18, 8
	for _, mode := range []Rollback{RollbackSnapshots, RollbackReplay} {
		for _, acc := range []int{0, 2, 4, 7} {
			b.Run(fmt.Sprintf("%v/acc=%d", mode, acc), func(b *testing.B) {
				s := benchSession(&hp, nDelta, mode)
				rs := s.rs
				r := rand.New(rand.NewPCG(1, 2))
				live := rs.block(0, -1)
				for i := range live {
					live[i] = float32(r.NormFloat64() * 0.1)
				}
				// One token's recurrence inputs, as the forward pass leaves
				// them: a conv row, normalised k|v, g <= 0, β in (0, 1).
				x := make([]float32, hp.convDim)
				kv := make([]float32, rs.kvSz)
				gb := make([]float32, 2*hp.hv)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				for h := range hp.hk + hp.hv {
					v := kv[h*hp.dk : (h+1)*hp.dk]
					for i := range v {
						v[i] = float32(r.NormFloat64())
					}
					kernels.L2Norm(v, v, 1e-6)
				}
				for h := range hp.hv {
					gb[h], gb[hp.hv+h] = -0.1, 0.5
				}
				n := 1 + nDraft
				pos := 100
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					start := pos
					if mode == RollbackSnapshots {
						rs.dropAbove(0, start)
						for l := start; l < start+n; l++ {
							slot := rs.claim(0, l)
							for li := range nDelta {
								copy(rs.conv(0, slot, li), rs.conv(0, -1, li))
								copy(rs.ssm(0, slot, li), rs.ssm(0, -1, li))
							}
						}
					} else {
						rs.dropAbove(0, start)
						rs.startTape(0, start, n)
						for li := range nDelta {
							copy(rs.conv(0, baseSlot, li), rs.conv(0, -1, li))
							copy(rs.ssm(0, baseSlot, li), rs.ssm(0, -1, li))
							for t := range n {
								row := rs.row(0, li, t)
								copy(row, x)
								copy(row[rs.convD:], kv)
								copy(row[rs.convD+rs.kvSz:], gb)
							}
						}
					}
					if err := s.truncateState(0, start+1+acc, start+n); err != nil {
						b.Fatal(err)
					}
					pos = start + 1 + acc
				}
				b.StopTimer()
				per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(per/float64(acc+1), "ns/kept-token")
				b.ReportMetric(float64(rs.bytes())/(1<<20), "MiB/seq")
			})
		}
	}
}

// benchSession is a session with only what rollback touches: the model's
// hyper-parameters, the recurrent state and the pool.
func benchSession(hp *hparams, nDelta int, mode Rollback) *session {
	m := &Model{hp: *hp, nDelta: nDelta}
	c, err := kvcache.New(kvcache.Options{NKV: 1, NCtx: 1, NSeq: 1, Recurrent: recurrentSize(hp, nDelta)})
	if err != nil {
		panic(err)
	}
	s := &session{m: m, pool: kernels.SharedPool(0), rs: newRecurrent(hp, nDelta, 1, DefaultDepth, mode, 0, c)}
	s.replayT.s = s
	return s
}

// TestReplayAllocatesNothing: a replay large enough to run on the pool (the
// Qwen3.5-0.8B recurrent shape, 8 tokens) allocates nothing once warm.
func TestReplayAllocatesNothing(t *testing.T) {
	hp := hparams{nEmbd: 1024, convK: 4, dk: 128, dv: 128, hk: 16, hv: 16, interval: 4}
	hp.convDim = 2*hp.hk*hp.dk + hp.hv*hp.dv
	hp.innerDim = hp.hv * hp.dv
	s := benchSession(&hp, 18, RollbackReplay)
	replay := func() {
		s.rs.startTape(0, 10, 9)
		if err := s.truncateState(0, 18, 19); err != nil {
			t.Fatal(err)
		}
	}
	replay()
	if a := testing.AllocsPerRun(5, replay); a != 0 {
		t.Errorf("a warm replay of 8 tokens allocates %v times", a)
	}
}
