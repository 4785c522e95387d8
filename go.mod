module github.com/waggle-llm/waggle

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0 // indirect
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
