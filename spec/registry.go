package spec

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Order is the fixed priority of the chain, whatever order the user listed
// the types in: llama.cpp's (n-gram families, then the draft model) with
// the buun fork's context drafters (copyspec, suffix, recycle) placed after
// the n-gram cache and before any model.
var Order = []string{
	"ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache",
	"copyspec", "suffix", "recycle", "draft-simple", "draft-eagle3", "dflash",
}

// aliases maps older or shorter names to those of Order.
var aliases = map[string]string{"draft": "draft-simple", "eagle3": "draft-eagle3"}

// Factory builds a Strategy from the configuration.
type Factory func(cfg *Config) (Strategy, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Factory{}
)

// Register makes a strategy available by name; strategy packages call it
// from init. The name must be one of Order.
func Register(name string, f Factory) {
	if !slices.Contains(Order, name) {
		panic("spec: Register of a name outside spec.Order: " + name)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("spec: strategy registered twice: " + name)
	}
	registry[name] = f
}

// Registered lists the linked-in strategy names in priority order.
func Registered() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []string
	for _, n := range Order {
		if registry[n] != nil {
			out = append(out, n)
		}
	}
	return out
}

func factory(name string) Factory {
	regMu.RLock()
	defer regMu.RUnlock()
	return registry[name]
}

// ParseTypes reads a --spec-type value: a comma-separated list of names
// from Order ("draft" means draft-simple). "none" anywhere, or an empty
// value, means no speculation (nil). Unknown names are an error. The result
// is deduplicated and in priority order.
func ParseTypes(s string) ([]string, error) {
	seen := map[string]bool{}
	none := false
	for _, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(strings.ToLower(f))
		if a, ok := aliases[name]; ok {
			name = a
		}
		switch {
		case name == "":
		case name == "none":
			none = true
		case slices.Contains(Order, name):
			seen[name] = true
		default:
			return nil, fmt.Errorf("spec: unknown speculative type %q (known: none, %s)", name, strings.Join(Order, ", "))
		}
	}
	if none {
		return nil, nil
	}
	var out []string
	for _, n := range Order {
		if seen[n] {
			out = append(out, n)
		}
	}
	return out, nil
}
