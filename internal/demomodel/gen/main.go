// Command gen writes the embedded demo model (go generate ./cmd/waggle).
package main

import (
	"fmt"
	"os"

	"github.com/waggle-llm/waggle/internal/demomodel"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen out.gguf")
		os.Exit(2)
	}
	b, err := demomodel.Build()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
