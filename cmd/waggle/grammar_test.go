package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `waggle run --grammar` and --json-schema constrain what is generated.
func TestRunGrammarFlags(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	var res runResult
	out, err := runCLI(t, "run", "-m", m, "-p", "Once upon a time", "-n", "12", "--temp", "0", "--json",
		"--grammar", `root ::= " " [0-9]{2,5} "!"`)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^ [0-9]{2,5}!$`).MatchString(res.Text) {
		t.Fatalf("--grammar: generated %q", res.Text)
	}
	schema := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(schema, []byte(`{"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}}, "required": ["name"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "run", "-m", m, "-p", "Once upon a time", "-n", "40", "--temp", "0", "--json", "--json-schema-file", schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var obj map[string]string
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Text)), &obj); err != nil || len(obj["name"]) > 8 {
		t.Fatalf("--json-schema-file: generated %q (%v)", res.Text, err)
	}
	if _, err := runCLI(t, "run", "-m", m, "-p", "x", "--grammar", "root ::= y"); err == nil || !strings.Contains(err.Error(), "undefined rule") {
		t.Fatalf("a bad grammar: %v", err)
	}
	if _, err := runCLI(t, "run", "-m", m, "-p", "x", "--grammar", `root ::= "a"`, "--json-schema", "{}"); err == nil {
		t.Fatal("two grammar sources were accepted")
	}
}
