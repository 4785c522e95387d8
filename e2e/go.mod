module github.com/waggle-llm/waggle/e2e

go 1.26.0

require github.com/sashabaranov/go-openai v1.43.0
