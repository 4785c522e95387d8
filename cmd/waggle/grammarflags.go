package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/grammar"
	"github.com/waggle-llm/waggle/engine/sample"
)

// grammarFlags are llama.cpp's --grammar, --grammar-file, --json-schema
// and --json-schema-file.
type grammarFlags struct {
	Grammar        string `name:"grammar" help:"GBNF grammar that constrains the output (serve: the default for requests without grammar, json_schema or tools)." env:"WAGGLE_GRAMMAR"`
	GrammarFile    string `name:"grammar-file" help:"File holding a GBNF grammar." type:"path" env:"WAGGLE_GRAMMAR_FILE"`
	JSONSchema     string `name:"json-schema" short:"j" help:"JSON schema that constrains the output (converted to a grammar as llama.cpp does)." env:"WAGGLE_JSON_SCHEMA"`
	JSONSchemaFile string `name:"json-schema-file" help:"File holding a JSON schema." type:"path" env:"WAGGLE_JSON_SCHEMA_FILE"`
}

// text returns the grammar the flags give ("" for none).
func (f *grammarFlags) text() (string, error) {
	n := 0
	for _, s := range []string{f.Grammar, f.GrammarFile, f.JSONSchema, f.JSONSchemaFile} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		return "", errors.New("give at most one of --grammar, --grammar-file, --json-schema and --json-schema-file")
	}
	read := func(path, flag string) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", flag, err)
		}
		return string(b), nil
	}
	schema := f.JSONSchema
	switch {
	case f.Grammar != "":
		return f.Grammar, nil
	case f.GrammarFile != "":
		return read(f.GrammarFile, "--grammar-file")
	case f.JSONSchemaFile != "":
		s, err := read(f.JSONSchemaFile, "--json-schema-file")
		if err != nil {
			return "", err
		}
		schema = s
	}
	if schema == "" {
		return "", nil
	}
	v, err := grammar.ParseJSON([]byte(schema))
	if err != nil {
		return "", fmt.Errorf("--json-schema: %w", err)
	}
	return grammar.SchemaToGrammar(v)
}

// constrain parses the flags' grammar and sets it on smp (run).
func (f *grammarFlags) constrain(l *engine.Loaded, smp *sample.Sampler) error {
	src, err := f.text()
	if err != nil || src == "" {
		return err
	}
	g, err := grammar.Parse(src, func(text string) []int32 { return l.Tokenizer.Encode(text, false, true) })
	if err != nil {
		return err
	}
	smp.SetConstraint(grammar.NewMatcher(g, grammar.NewIndex(l.Tokenizer)))
	return nil
}
