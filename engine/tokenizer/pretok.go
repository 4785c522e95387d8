package tokenizer

import "fmt"

// Pre-tokenization splits text into words before BPE. llama.cpp describes
// each pre-tokenizer as a list of regular expressions applied in turn: every
// expression splits each current piece into its matches and the text
// between them. Go's regexp has no lookahead and different semantics, so
// each expression is written here by hand as a scan over code points and
// their Unicode categories (unicode.Version of the Go toolchain).

type preKind uint8

const (
	preDefault preKind = iota
	preGPT2
	preLlama3
	preQwen2
	preDeepseekLLM
	preDeepseekCoder
	preFalcon
	preStarcoder
)

// preInfo is what a tokenizer.ggml.pre name means to llama.cpp: which
// splitter, and which defaults it changes.
type preInfo struct {
	kind         preKind
	dirtySpaces  bool // llama.cpp's clean_spaces = false
	addBOS       bool // default add_bos = true
	noBOS        bool // no BOS token by default
	ignoreMerges bool // a word that is already a token is not merged
	addSEP       bool
}

// preNames lists the pre-tokenizer names accepted; any other name is
// refused at load, as llama.cpp does.
var preNames = map[string]preInfo{
	"":        {kind: preDefault},
	"default": {kind: preDefault},

	"llama3":       {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"llama-v3":     {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"llama-bpe":    {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"falcon3":      {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"falcon-h1":    {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"pixtral":      {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"midm-2.0":     {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"lfm2":         {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"jina-v5-nano": {kind: preLlama3, addBOS: true, ignoreMerges: true},
	"dbrx":         {kind: preLlama3},
	"smaug-bpe":    {kind: preLlama3},
	"glm4":         {kind: preLlama3, noBOS: true},
	"chatglm-bpe":  {kind: preLlama3, noBOS: true},

	"deepseek-llm":   {kind: preDeepseekLLM, dirtySpaces: true},
	"deepseek-coder": {kind: preDeepseekCoder, dirtySpaces: true},
	"falcon":         {kind: preFalcon},

	"gpt-2":           {kind: preGPT2},
	"mpt":             {kind: preGPT2},
	"phi-2":           {kind: preGPT2},
	"jina-es":         {kind: preGPT2},
	"jina-de":         {kind: preGPT2},
	"gigachat":        {kind: preGPT2},
	"jina-v2-es":      {kind: preGPT2},
	"jina-v2-de":      {kind: preGPT2},
	"a.x-4.0":         {kind: preGPT2},
	"mellum":          {kind: preGPT2},
	"modern-bert":     {kind: preGPT2},
	"exaone4":         {kind: preGPT2},
	"olmo":            {kind: preGPT2},
	"jais":            {kind: preGPT2},
	"jina-v1-en":      {kind: preGPT2, addSEP: true},
	"jina-v2-code":    {kind: preGPT2, addSEP: true},
	"roberta-bpe":     {kind: preGPT2, addSEP: true},
	"trillion":        {kind: preGPT2, dirtySpaces: true},
	"granite-docling": {kind: preGPT2, dirtySpaces: true},

	"starcoder":  {kind: preStarcoder},
	"refact":     {kind: preStarcoder},
	"codeshell":  {kind: preStarcoder},
	"exaone":     {kind: preStarcoder},
	"minerva-7b": {kind: preStarcoder},
	"command-r":  {kind: preStarcoder, dirtySpaces: true},
	"smollm":     {kind: preStarcoder, dirtySpaces: true},

	"qwen2":            {kind: preQwen2, dirtySpaces: true},
	"deepseek-r1-qwen": {kind: preQwen2, dirtySpaces: true},
	"kormo":            {kind: preQwen2, dirtySpaces: true},
	"f2llmv2":          {kind: preQwen2, dirtySpaces: true},
	"hunyuan":          {kind: preQwen2, dirtySpaces: true},
	"grok-2":           {kind: preQwen2, dirtySpaces: true},
	"solar-open":       {kind: preQwen2, dirtySpaces: true},
	"megrez":           {kind: preQwen2},
	"stablelm2":        {kind: preQwen2},
}

func lookupPre(name string) (preInfo, error) {
	p, ok := preNames[name]
	if !ok {
		return p, fmt.Errorf("tokenizer: unknown pre-tokenizer %q (tokenizer.ggml.pre)", name)
	}
	return p, nil
}

// outOfRange stands for "no code point" past either end of a piece.
const outOfRange rune = -1

// splitter holds the decoded text of one fragment and the piece boundaries
// while the stages run. Pieces are stored as their end offsets (in code
// points); piece k spans [ends[k-1], ends[k]).
type splitter struct {
	cps   []rune
	flags []cpFlags
	ends  []int32
	next  []int32
	cur   piece // reused so stages do not allocate a piece per call
}

// load decodes s the way llama.cpp does (invalid bytes become U+FFFD).
func (sp *splitter) load(s string) {
	sp.cps, sp.flags = sp.cps[:0], sp.flags[:0]
	for i := 0; i < len(s); {
		cp, n := decodeCodepoint(s, i)
		i += n
		sp.cps = append(sp.cps, cp)
		sp.flags = append(sp.flags, flagsOf(cp))
	}
	sp.ends = append(sp.ends[:0], int32(len(sp.cps)))
	if len(sp.cps) == 0 {
		sp.ends = sp.ends[:0]
	}
}

// run applies the stages of a pre-tokenizer kind.
func (sp *splitter) run(kind preKind) {
	switch kind {
	case preGPT2:
		sp.stage(splitGPT2)
	case preLlama3:
		sp.stage(splitLlama3)
	case preQwen2:
		sp.stage(splitQwen2)
	case preStarcoder:
		sp.matchStage(matchNumber)
		sp.stage(splitGPT2)
	case preFalcon:
		sp.matchStage(matchFalconPunct)
		sp.stage(splitGPT2)
		sp.matchStage(matchThreeDigits)
	case preDeepseekLLM:
		sp.matchStage(matchCRLF)
		sp.matchStage(matchDSLetters)
		sp.matchStage(matchDSPunct)
		sp.stage(splitTrailingSpace)
		sp.matchStage(matchDSCJK)
		sp.matchStage(matchNumberRun)
	case preDeepseekCoder:
		sp.matchStage(matchCRLF)
		sp.matchStage(matchSpaceLetters)
		sp.matchStage(matchSpacePunct)
		sp.matchStage(matchDSCJK)
		sp.matchStage(matchNumber)
	default:
		sp.matchStage(matchFalconPunct)
		sp.stage(splitGPT2)
		sp.matchStage(matchNumberRun)
		sp.matchStage(matchThreeDigits)
	}
}

// piece is one current piece [a, b) handed to a stage, with accessors that
// answer "nothing" outside it, as llama.cpp's splitters do.
type piece struct {
	sp   *splitter
	a, b int
}

func (p *piece) cp(i int) rune {
	if i < p.a || i >= p.b {
		return outOfRange
	}
	return p.sp.cps[i]
}

func (p *piece) fl(i int) cpFlags {
	if i < p.a || i >= p.b {
		return 0
	}
	return p.sp.flags[i]
}

// emit closes a new piece at end.
func (p *piece) emit(end int) {
	p.sp.next = append(p.sp.next, int32(end))
}

// stage runs a splitter that partitions each piece completely. The splitter
// calls emit with increasing ends; empty pieces are never emitted.
func (sp *splitter) stage(f func(p *piece)) {
	sp.next = sp.next[:0]
	start := 0
	for _, e := range sp.ends {
		sp.cur = piece{sp: sp, a: start, b: int(e)}
		f(&sp.cur)
		start = int(e)
	}
	sp.ends, sp.next = sp.next, sp.ends
}

// matchStage runs a "find every match" stage: a matcher reports the end of
// the match starting at i (i when there is none). Matches are found left to
// right without overlap; text between matches stays a piece of its own.
func (sp *splitter) matchStage(m func(p *piece, i int) int) {
	sp.next = sp.next[:0]
	start := 0
	for _, e := range sp.ends {
		sp.cur = piece{sp: sp, a: start, b: int(e)}
		p := &sp.cur
		gap := p.a
		for i := p.a; i < p.b; {
			end := m(p, i)
			if end <= i {
				i++
				continue
			}
			if i > gap {
				p.emit(i)
			}
			p.emit(end)
			i, gap = end, end
		}
		if gap < p.b {
			p.emit(p.b)
		}
		start = int(e)
	}
	sp.ends, sp.next = sp.next, sp.ends
}
