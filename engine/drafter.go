package engine

// HeadSharer is implemented by target models whose token embeddings and
// output head a drafter may borrow (a DFlash drafter has neither and uses
// the target's).
type HeadSharer interface {
	// SharedHead returns the token-embedding matrix (rows: tokens) and the
	// output head (rows: vocabulary; the embeddings themselves when tied).
	SharedHead() (embeddings, output *Matrix)
}

// BlockDrafterModel is a drafter that proposes a whole block of tokens in
// one forward pass, conditioned on the target's hidden states at Taps
// (DFlash). It is loaded like any model, but runs only bound to a target.
type BlockDrafterModel interface {
	Model
	// Block describes what the drafter needs from its target.
	Block() BlockInfo
	// NewBlockDrafter binds the drafter to target, checking that they
	// match (hidden size, vocabulary, tapped layers), and sizes its
	// scratch for o.
	NewBlockDrafter(target Model, o BlockDrafterOptions) (BlockDrafter, error)
}

// BlockInfo describes a block drafter.
type BlockInfo struct {
	BlockSize int   // tokens per block: the anchor and BlockSize-1 masks
	MaskToken int32 // the token of the masked positions
	Taps      []Tap // target residual-stream taps, in the order the drafter concatenates them
	NEmbd     int   // the target's hidden size the drafter expects
}

// BlockDrafterOptions size a bound drafter.
type BlockDrafterOptions struct {
	// CrossCtx is the context window: the most recent target rows a draft
	// attends to (DFlash's --spec-dflash-cross-ctx, 512).
	CrossCtx int
	// NSeq is the number of sequences (server slots) the drafter keeps
	// projected context rows for.
	NSeq int
	// MaxBlocks is the most blocks one Draft call runs together.
	MaxBlocks int
	// Threads is the worker count (0: the process default), as in
	// SessionOptions.
	Threads int
}

// BlockJob asks for one block: sequence Seq's context window is the newest
// rows of Ring (the target's captured rows at BlockInfo.Taps), and the block
// is [Anchor, mask × (N-1)].
type BlockJob struct {
	Seq    int
	Ring   *HiddenRing
	Anchor int32
	N      int
}

// BlockDrafter runs a bound block drafter.
type BlockDrafter interface {
	// Draft evaluates the blocks of jobs in one forward pass (their
	// matrix products batched, each block attending only to its own
	// window and block). The context rows a sequence's window gained since
	// its last draft are projected once and kept.
	Draft(jobs []BlockJob) error
	// Logits returns row r (0 ≤ r < jobs[j].N) of job j of the last
	// Draft: row r ≥ 1 is the drafter's distribution for the token r
	// positions after the anchor. Owned by the drafter, valid until the
	// next Draft.
	Logits(j, r int) []float32
	// CrossLen returns how many context rows job j's window held.
	CrossLen(j int) int
}
