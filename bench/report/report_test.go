package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "''",
		"-np":              "-np",
		"4,8":              "4,8",
		"../m/x-q4_0.gguf": "../m/x-q4_0.gguf",
		"a b":              "'a b'",
		"it's":             `'it'\''s'`,
		"$HOME":            "'$HOME'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"/root/.cache/go-build/ab/cd-d/servebench", "-m", "a b.gguf", "-np", "4,8"})
	if got != "go run ./bench/servebench -m 'a b.gguf' -np 4,8" {
		t.Errorf("go run binary: %s", got)
	}
	if got := commandLine([]string{"/usr/local/bin/membw", "-t", "2"}); got != "/usr/local/bin/membw -t 2" {
		t.Errorf("built binary: %s", got)
	}
}

func TestWrite(t *testing.T) {
	p := Collect()
	if len(p.Date) != 10 || p.Commit == "" || !strings.Contains(p.Machine, "logical cores") {
		t.Fatalf("%+v", p)
	}
	var b bytes.Buffer
	Provenance{Date: "2026-01-02", Commit: "abc1234", Machine: "M", Command: "go run ./bench/x"}.Write(&b)
	if b.String() != "2026-01-02, commit `abc1234`, M:\n\n```sh\ngo run ./bench/x\n```\n\n" {
		t.Fatalf("%q", b.String())
	}
}
