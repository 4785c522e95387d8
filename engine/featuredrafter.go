package engine

// FeatureDrafterModel is a drafter that conditions on the target's hidden
// states token by token (EAGLE-3): the target's residual stream at the
// inputs of a few layers is fused into one feature per token, and a small
// decoder with its own KV cache consumes (token, feature) pairs, feeding
// its own output state back as the next feature while it drafts. It is
// loaded like any model but runs only bound to a target.
type FeatureDrafterModel interface {
	Model
	// Features describes what the drafter reads from its target.
	Features() FeatureInfo
	// NewFeatureDrafter binds the drafter to target, checking that they
	// match (hidden size, vocabulary, layer count), and sizes its KV cache
	// and scratch for o (NCtx and NSeq should be the target session's).
	NewFeatureDrafter(target Model, o SessionOptions) (FeatureDrafter, error)
}

// FeatureInfo describes a feature drafter's inputs.
type FeatureInfo struct {
	// Layers are the target layers whose inputs are fused, in the order the
	// drafter concatenates them. Layer L's input is the output of layer
	// L-1 (0: the token embeddings); L equal to the target's layer count
	// means its last layer's output, before the final norm.
	Layers []int
	// TargetEmbd is the target hidden size the drafter was trained for:
	// a fused input row is len(Layers)·TargetEmbd values.
	TargetEmbd int
	// NEmbd is the width of a fused feature and of the state fed back.
	NEmbd int
}

// FeatureDrafter runs a bound feature drafter.
type FeatureDrafter interface {
	// Fuse computes the features g (NEmbd values per row) of n target rows
	// x (len(Layers)·TargetEmbd values per row, the layers in Features
	// order). At most Options().NBatch rows per call.
	Fuse(g, x []float32, n int)
	// Decode evaluates the batch: token i is paired with feature row i of
	// g and stored in the drafter's KV cache at b.Pos[i] of b.Seq[i];
	// positions continue each sequence as in Session.Decode. Tokens with
	// Output set get logits and a next state.
	Decode(b *Batch, g []float32) error
	// NumOutputs is the number of outputs of the last Decode.
	NumOutputs() int
	// Logits returns the k-th output's logits over the drafter's own
	// vocabulary (see DraftVocab). Owned by the drafter, valid until the
	// next Decode.
	Logits(k int) []float32
	// Next returns the k-th output's state to feed back as the feature of
	// the token drafted from it. Valid until the next Decode.
	Next(k int) []float32
	// DraftVocab maps a drafter vocabulary id to the target token id it
	// stands for; nil when the two vocabularies are the same.
	DraftVocab() []int32
	// SeqLen returns the number of positions held for sequence seq.
	SeqLen(seq int) int
	// Truncate drops positions >= pos of sequence seq.
	Truncate(seq, pos int) error
	// Options returns the effective options.
	Options() SessionOptions
}
