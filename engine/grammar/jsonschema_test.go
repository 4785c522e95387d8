package grammar

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The converter writes exactly the grammar llama.cpp's
// json_schema_to_grammar writes for each recorded schema, and fails where
// it fails (testdata/README.md says how the recordings were made).
func TestSchemaToGrammarMatchesLlamaCpp(t *testing.T) {
	b, err := os.ReadFile("testdata/llamacpp_schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Schema  json.RawMessage `json:"schema"`
		Grammar string          `json:"grammar"`
		Error   string          `json:"error"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		v, err := ParseJSON(c.Schema)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SchemaToGrammar(v)
		if strings.Contains(string(c.Schema), `"https://`) {
			// llama.cpp fetches nothing either: its remote reference
			// resolves to an empty schema; Waggle refuses it.
			if err == nil {
				t.Errorf("%s: a remote $ref must be refused", c.Schema)
			}
			continue
		}
		switch {
		case c.Error != "":
			if err == nil {
				t.Errorf("%s: llama.cpp fails (%s), Waggle gives\n%s", c.Schema, strings.TrimSpace(c.Error), got)
			}
		case err != nil:
			t.Errorf("%s: %v; llama.cpp gives\n%s", c.Schema, err, c.Grammar)
		case got != c.Grammar:
			t.Errorf("%s:\n got %s\nwant %s", c.Schema, got, c.Grammar)
		default:
			_, errW := Parse(got, nil)
			_, errL := Parse(c.Grammar, nil)
			if (errW == nil) != (errL == nil) {
				t.Errorf("%s: grammar parse: %v, llama.cpp's: %v", c.Schema, errW, errL)
			}
		}
	}
}

// Patterns llama.cpp cannot translate are errors that name the pattern,
// not silent approximations or hangs.
func TestSchemaPatternErrors(t *testing.T) {
	deep := "^" + strings.Repeat("(", MaxNesting+1) + "a" + strings.Repeat(")", MaxNesting+1) + "$"
	for _, p := range []string{`^(?=a)b$`, `^a]$`, `^a{2,x}$`, `^*a$`, `^[ab$`, deep} {
		v, _ := ParseJSON([]byte(`{"type": "string", "pattern": ` + strings.ReplaceAll(`"`+p+`"`, `\`, `\\`) + `}`))
		if _, err := SchemaToGrammar(v); err == nil {
			t.Errorf("pattern %q accepted", p)
		}
	}
}
