package main

import _ "embed"

//go:generate go run ../../internal/demomodel/gen demo.gguf

// demoGGUF is the embedded demo network written by internal/demomodel: tiny,
// random weights from a fixed seed, a toy vocabulary. It makes the Quick
// start work without downloads; its text is gibberish.
//
//go:embed demo.gguf
var demoGGUF []byte

func demoModel() []byte { return demoGGUF }
