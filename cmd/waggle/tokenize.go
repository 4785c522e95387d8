package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine/tokenizer"
	"github.com/waggle-llm/waggle/gguf"
)

// tokenizeCmd prints the tokens of a text with llama-tokenize's defaults and
// output: BOS added when the vocabulary asks for it, special tokens parsed,
// escapes such as \n processed, one "%6d -> 'piece'" line per token.
type tokenizeCmd struct {
	Model          string `short:"m" help:"GGUF model or vocab-only file." type:"existingfile" required:""`
	Text           string `arg:"" optional:"" help:"Text to tokenize."`
	Prompt         string `short:"p" help:"Text to tokenize (same as the positional argument)."`
	File           string `short:"f" help:"Read the text from a file." type:"existingfile"`
	Stdin          bool   `name:"stdin" help:"Read the text from standard input."`
	IDs            bool   `name:"ids" help:"Print only the ids, as a list like [1, 2, 3]."`
	NoBOS          bool   `name:"no-bos" help:"Do not add the BOS token."`
	NoParseSpecial bool   `name:"no-parse-special" help:"Treat special-token text as plain text."`
	NoEscape       bool   `name:"no-escape" help:"Do not process escapes such as \\n and \\t."`
	ShowCount      bool   `name:"show-count" help:"Print the number of tokens."`
}

// maxInput bounds the text read from a file or standard input.
const maxInput = 1 << 30

func (c *tokenizeCmd) Run() error {
	text, err := c.input()
	if err != nil {
		return err
	}
	if !c.NoEscape {
		text = processEscapes(text)
	}
	f, err := gguf.Open(c.Model)
	if err != nil {
		return err
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return err
	}
	// llama-tokenize passes add_special = the vocabulary adds BOS and no
	// --no-bos; the same flag governs EOS for vocabularies that add one.
	ids := tok.Encode(text, tok.AddBOS() && !c.NoBOS, !c.NoParseSpecial)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	printTokens(out, tok, ids, c.IDs)
	if c.ShowCount {
		fmt.Fprintf(out, "Total number of tokens: %d\n", len(ids))
	}
	return nil
}

func (c *tokenizeCmd) input() (string, error) {
	switch {
	case c.Stdin:
		b, err := io.ReadAll(io.LimitReader(os.Stdin, maxInput))
		return string(b), err
	case c.File != "":
		b, err := os.ReadFile(c.File)
		return string(b), err
	case c.Prompt != "":
		return c.Prompt, nil
	}
	return c.Text, nil
}

func printTokens(out io.Writer, tok *tokenizer.Tokenizer, ids []int32, onlyIDs bool) {
	if !onlyIDs {
		for _, id := range ids {
			fmt.Fprintf(out, "%6d -> '%s'\n", id, tok.Piece(id, true))
		}
		return
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	fmt.Fprintf(out, "[%s]\n", strings.Join(parts, ", "))
}

// processEscapes turns \n, \r, \t, \', \", \\ and \xNN into the characters
// they name, as llama.cpp's string_process_escapes does; other backslashes
// are kept.
func processEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '\'', '"', '\\':
			b.WriteByte(s[i])
		case 'x':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
				b.WriteByte(byte(v))
				i += 2
			} else {
				b.WriteString(`\x`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
