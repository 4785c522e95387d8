package spec

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Stats are one strategy's counters, llama.cpp's set: calls to Begin, Draft
// and Accept; drafts produced and drafts with at least one accepted token;
// tokens drafted and accepted; time spent in each call. The decode loop
// writes them; any goroutine (the server's /metrics) may read them.
type Stats struct {
	Name                       string
	Begins, Drafts, Accepts    atomic.Int64 // #calls(b,g,a)
	GenDrafts, AccDrafts       atomic.Int64 // #gen drafts, #acc drafts
	GenTokens, AccTokens       atomic.Int64 // #gen tokens, #acc tokens
	BeginNS, DraftNS, AcceptNS atomic.Int64 // dur(b,g,a)
}

// Snapshot is a plain copy of Stats.
type Snapshot struct {
	Name                          string
	Begins, Drafts, Accepts       int64
	GenDrafts, AccDrafts          int64
	GenTokens, AccTokens          int64
	BeginDur, DraftDur, AcceptDur time.Duration
}

// Snapshot copies the counters (each read is atomic; the set is not).
func (s *Stats) Snapshot() Snapshot {
	return Snapshot{
		Name: s.Name, Begins: s.Begins.Load(), Drafts: s.Drafts.Load(), Accepts: s.Accepts.Load(),
		GenDrafts: s.GenDrafts.Load(), AccDrafts: s.AccDrafts.Load(),
		GenTokens: s.GenTokens.Load(), AccTokens: s.AccTokens.Load(),
		BeginDur: time.Duration(s.BeginNS.Load()), DraftDur: time.Duration(s.DraftNS.Load()),
		AcceptDur: time.Duration(s.AcceptNS.Load()),
	}
}

// String is llama.cpp's statistics line.
func (s Snapshot) String() string {
	return fmt.Sprintf("statistics %s: #calls(b,g,a) = %d %d %d, #gen drafts = %d, #acc drafts = %d, #gen tokens = %d, #acc tokens = %d, dur(b,g,a) = %.3f, %.3f, %.3f ms",
		s.Name, s.Begins, s.Drafts, s.Accepts, s.GenDrafts, s.AccDrafts, s.GenTokens, s.AccTokens,
		ms(s.BeginDur), ms(s.DraftDur), ms(s.AcceptDur))
}

// AcceptanceRate is accepted over generated draft tokens (0 when none).
func (s Snapshot) AcceptanceRate() float64 {
	if s.GenTokens == 0 {
		return 0
	}
	return float64(s.AccTokens) / float64(s.GenTokens)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
