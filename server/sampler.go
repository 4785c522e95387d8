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
	NCtx             int    // what RepeatLastN == -1 stands for
}

// DefaultSampling returns llama-server's defaults.
func DefaultSampling() SamplingParams {
	return SamplingParams{Temp: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, TypicalP: 1,
		RepeatPenalty: 1, RepeatLastN: 64, Seed: 0xFFFFFFFF}
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
