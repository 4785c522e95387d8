package spec

import "github.com/waggle-llm/waggle/engine/sample"

// RequestOptions are per-request overrides (the server fills them from a
// request's "speculative.n_max", "speculative.n_min" and
// "speculative.type"). Zero values mean "as configured".
type RequestOptions struct {
	NMax  int      // cap on every draft of this request (> 0 to override)
	NMin  int      // shortest draft worth verifying (> 0 to override)
	Types []string // subset of the chain's strategies to use (nil: all)
	// Off disables speculation for the request ("speculative.type": "none").
	Off bool
	// BranchBudget is speculative.branch_budget (tree drafters: extra
	// nodes beyond the main path); HasBranchBudget says it was given.
	BranchBudget    int
	HasBranchBudget bool
	// PMin is speculative.p_min (drafters that stop at low confidence);
	// HasPMin says it was given.
	PMin    float32
	HasPMin bool
}

// Slot is one generating sequence: its sampler, the tokens so far, limits,
// its adaptive controller (kept across requests, as BeeLlama keeps its
// EWMAs on the server slot) and its draft counters.
type Slot struct {
	Seq     int32
	Sampler *sample.Sampler
	// NPredict bounds the tokens generated per request (< 0: until the
	// context is full or an end-of-generation token).
	NPredict int
	// IsEOG ends generation after an end-of-generation token (nil: never).
	IsEOG func(int32) bool
	Opts  RequestOptions

	// DraftN and DraftAccepted count this request's drafted and accepted
	// tokens (llama.cpp's timings.draft_n and draft_n_accepted).
	DraftN, DraftAccepted int
	// SampledAccepted and SampledResidual count this request's sampled
	// verifications of tree and stochastic drafts: a drafted candidate
	// accepted, or every candidate rejected and the token drawn from the
	// residual (BeeLlama's "rejection sampling" line).
	SampledAccepted, SampledResidual int

	tokens []int32 // prompt and emitted tokens; the last is not in the KV cache
	nGen   int
	done   bool
	mask   uint64 // strategies allowed (bit i: chain index i)
	ctl    Controller
	req    Request
	lastK  int // draft length of the last cycle
	// lastCap is the draft cap of this cycle when the controller chose
	// one (0: a plain step).
	lastCap int

	// A shadow draft (see Controller.Shadow): shadow[j] predicts
	// tokens[shadowAt+j]; it is judged on its first shadowHz tokens.
	// Empty: none pending.
	shadow   []int32
	shadowAt int
	shadowHz int
}

// Tokens returns the sequence so far (prompt and generated), aliasing the
// slot's storage.
func (s *Slot) Tokens() []int32 { return s.tokens }

// Generated returns how many tokens this request has emitted.
func (s *Slot) Generated() int { return s.nGen }

// Done reports that the slot stopped: n-predict reached, an
// end-of-generation token, a full context, or emit returned false.
func (s *Slot) Done() bool { return s.done }

// NPast is the number of the slot's positions in the KV cache.
func (s *Slot) NPast() int { return max(len(s.tokens)-1, 0) }

// Controller returns the slot's adaptive controller (nil when off).
func (s *Slot) Controller() Controller { return s.ctl }
