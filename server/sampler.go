package server

// SamplingParams are a request's sampling values, named as in llama.cpp's
// common_params_sampling. cmd/waggle maps them onto engine/sample.Params.
type SamplingParams struct {
	Temp             float32
	TopK             int
	TopP             float32
	MinP             float32
	TypicalP         float32
	RepeatPenalty    float32
	RepeatLastN      int
	PresencePenalty  float32
	FrequencyPenalty float32
	Seed             uint32 // 0xFFFFFFFF: random
	NCtx             int    // what RepeatLastN and DryPenaltyLastN == -1 stand for

	MinKeep          int
	TopNSigma        float32 // <= 0: off
	DynatempRange    float32
	DynatempExponent float32
	XTCProbability   float32
	XTCThreshold     float32
	Mirostat         int // 0 off, 1, 2
	MirostatTau      float32
	MirostatEta      float32
	DryMultiplier    float32 // 0: off
	DryBase          float32
	DryAllowedLength int
	DryPenaltyLastN  int
	// DryBreakers are the sequence-breaker strings; the factory turns them
	// into token sequences against the vocabulary.
	DryBreakers    []string
	AdaptiveTarget float32 // adaptive-p; acts only when Samplers names it
	AdaptiveDecay  float32
	// Samplers is the stage order by llama.cpp's canonical names; nil is
	// the default order. SamplingSeq, when set, gives it instead as
	// --sampling-seq letters (a request's "samplers" string form).
	Samplers    []string
	SamplingSeq string
	// LogitBias holds the request's biases, then, with IgnoreEOS, -Inf for
	// every end-of-generation token.
	LogitBias []LogitBias
	IgnoreEOS bool
}

// LogitBias adds Bias to the logit of Token (-Inf bans it).
type LogitBias struct {
	Token int32
	Bias  float32
}

// DefaultDryBreakers are llama.cpp's default DRY sequence breakers.
func DefaultDryBreakers() []string { return []string{"\n", ":", "\"", "*"} }

// DefaultSampling returns llama-server's defaults.
func DefaultSampling() SamplingParams {
	return SamplingParams{Temp: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, TypicalP: 1,
		RepeatPenalty: 1, RepeatLastN: 64, Seed: 0xFFFFFFFF,
		TopNSigma: -1, DynatempExponent: 1, XTCThreshold: 0.1, MirostatTau: 5, MirostatEta: 0.1,
		DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: -1, DryBreakers: DefaultDryBreakers(),
		AdaptiveTarget: -1, AdaptiveDecay: 0.9}
}

// Sampler picks tokens from logit rows and remembers accepted ones for the
// penalties (*sample.Sampler satisfies it). Accept takes generated tokens
// (a grammar advances past them), AcceptPrompt the prompt's.
type Sampler interface {
	Sample(logits []float32) int32
	Accept(tok int32)
	AcceptPrompt(tok int32)
}

// SamplerFactory builds a Sampler; an error is the request's fault (400).
type SamplerFactory func(p SamplingParams, nVocab int) (Sampler, error)

// Tokenizer is what the server needs of a vocabulary
// (*tokenizer.Tokenizer satisfies it).
type Tokenizer interface {
	Encode(text string, addSpecial, parseSpecial bool) []int32
	Piece(id int32, special bool) string
	Token(id int32) string
	IsEOG(id int32) bool
	BOS() int32
	EOS() int32
	AddBOS() bool
	NVocab() int
}
