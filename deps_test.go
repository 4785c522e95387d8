package waggle_test

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/waggle-llm/waggle"

// allowedImports is DESIGN.md's import graph as data: for each package (a
// pattern ending in /* matches its subpackages), the project packages and
// outside modules it may import directly. The standard library is always
// allowed. "*" allows anything; a rule starting with "!" forbids what
// follows it whatever else the list allows. Any other edge fails the test.
var allowedImports = map[string][]string{
	"kernels":                {"golang.org/x/sys/cpu"},
	"kernels/vulkan":         {"kernels", "github.com/ebitengine/purego"},
	"engine/vulkan":          {"engine", "kernels", "kernels/vulkan", "kvcache"},
	"gguf":                   {},
	"kvcache":                {"kernels", "kvcache/turbo"},
	"kvcache/turbo":          {"kernels"},
	"engine":                 {"kernels", "gguf", "kvcache", "kvcache/turbo", "engine/tokenizer", "engine/sample", "engine/chat"},
	"engine/tokenizer":       {"gguf"},
	"engine/sample":          {},
	"engine/grammar":         {"engine/sample"},
	"engine/chat":            {"engine/grammar", "github.com/nikolalohinski/gonja/v2"},
	"engine/perplexity":      {"engine"},
	"engine/diffusion":       {"engine"},
	"engine/models/all":      {"engine/models/*"},
	"engine/models/*":        {"engine", "kernels", "gguf", "kvcache", "engine/tokenizer", "engine/models/moe"},
	"engine/models/moe":      {"engine", "kernels"},
	"spec":                   {"engine", "engine/sample"},
	"spec/*":                 {"spec", "engine", "engine/sample"},
	"server":                 {"engine", "engine/chat", "engine/diffusion", "engine/grammar", "engine/sample", "spec", "github.com/valyala/fasthttp"},
	"cmd/waggle":             {"!bench/*", "*"},
	"bench/*":                {"*"},
	"quantize":               {"kernels", "gguf"},
	"internal/golden":        {"gguf", "kernels"},
	"internal/testenv":       {},
	"internal/treetest":      {"engine"},
	"internal/demomodel":     {"gguf"},
	"internal/dflashgen":     {"gguf"},
	"internal/demomodel/gen": {"internal/demomodel"},
	"internal/eagle3gen":     {"gguf", "kernels"},
	"tools/*":                {},
}

// rulesFor returns the allowed list for a project package (path relative to
// the module), preferring an exact entry over a wildcard one.
func rulesFor(rel string) ([]string, bool) {
	if r, ok := allowedImports[rel]; ok {
		return r, true
	}
	for pat, r := range allowedImports {
		if strings.HasSuffix(pat, "/*") && path.Dir(rel) == strings.TrimSuffix(pat, "/*") {
			return r, true
		}
	}
	return nil, false
}

// edgeAllowed reports whether rel may import imp (a full import path).
func edgeAllowed(rules []string, imp string) bool {
	for _, a := range rules {
		if deny, ok := strings.CutPrefix(a, "!"); ok && ruleMatches(deny, imp) {
			return false
		}
	}
	for _, a := range rules {
		if !strings.HasPrefix(a, "!") && ruleMatches(a, imp) {
			return true
		}
	}
	return false
}

// ruleMatches reports whether one rule names imp.
func ruleMatches(a, imp string) bool {
	target := strings.TrimPrefix(imp, module+"/")
	switch {
	case a == "*", a == target, a == imp:
		return true
	case strings.HasSuffix(a, "/*") && path.Dir(target) == strings.TrimSuffix(a, "/*"):
		return true
	}
	return strings.HasPrefix(imp, a+"/") // subpackages of an allowed outside module
}

// TestImportGraph checks the default build and the one with the GPU
// backend (-tags vulkan), whose packages are empty without the tag.
func TestImportGraph(t *testing.T) {
	for _, tags := range []string{"", "vulkan"} {
		t.Run("tags="+tags, func(t *testing.T) { checkImportGraph(t, tags) })
	}
}

func checkImportGraph(t *testing.T, tags string) {
	out, err := exec.Command("go", "list", "-tags", tags, "-f", `{{.ImportPath}}|{{join .Imports ","}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	std := standardPackages(t)
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		if pkg == module {
			continue // the root holds only this test
		}
		rel := strings.TrimPrefix(pkg, module+"/")
		rules, ok := rulesFor(rel)
		if !ok {
			t.Errorf("package %s has no entry in allowedImports: add it to DESIGN.md and this test", rel)
			continue
		}
		checked++
		for _, imp := range strings.Split(imports, ",") {
			if imp == "" || std[imp] {
				continue
			}
			if !edgeAllowed(rules, imp) {
				t.Errorf("forbidden import: %s -> %s", rel, strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d packages checked; go list output was:\n%s", checked, out)
	}
}

// TestImportGraphCatchesViolations is a test of the test: a made-up edge
// from engine to server must be refused, an allowed one accepted.
func TestImportGraphCatchesViolations(t *testing.T) {
	rules, _ := rulesFor("engine")
	if edgeAllowed(rules, module+"/server") {
		t.Error("engine -> server was allowed")
	}
	if !edgeAllowed(rules, module+"/kvcache") {
		t.Error("engine -> kvcache was refused")
	}
	cr, _ := rulesFor("cmd/waggle")
	if edgeAllowed(cr, module+"/bench/gen") || !edgeAllowed(cr, module+"/quantize") {
		t.Error("cmd/waggle may import quantize and nothing under bench/")
	}
	mr, _ := rulesFor("engine/models/llama")
	if edgeAllowed(mr, module+"/spec") || !edgeAllowed(mr, module+"/engine") {
		t.Error("wildcard rules for engine/models/* are wrong")
	}
}

func standardPackages(t *testing.T) map[string]bool {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	std := map[string]bool{"unsafe": true, "C": true}
	for _, p := range strings.Fields(string(out)) {
		std[p] = true
	}
	return std
}
