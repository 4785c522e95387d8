// Package report writes the provenance every benchmark figure in
// docs/benchmarks.md carries: the date, the commit measured, the machine
// and the exact command, as a markdown preamble the bench tools print
// above their tables.
package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Provenance is where and how a table was measured.
type Provenance struct {
	Date    string // YYYY-MM-DD, UTC
	Commit  string // short hash, "+dirty" when the work tree has changes
	Machine string // CPU model, cores, memory, OS
	Command string // the command line as typed (arguments quoted where needed)
}

// Collect fills a Provenance for the running process.
func Collect() Provenance {
	return Provenance{
		Date:    time.Now().UTC().Format("2006-01-02"),
		Commit:  commit(),
		Machine: machine(),
		Command: commandLine(os.Args),
	}
}

// Write prints p as markdown: one line of facts and the command in a
// fenced block.
func (p Provenance) Write(w io.Writer) {
	fmt.Fprintf(w, "%s, commit `%s`, %s:\n\n```sh\n%s\n```\n\n", p.Date, p.Commit, p.Machine, p.Command)
}

// commit is `git rev-parse --short HEAD` plus "+dirty" when `git status
// --porcelain` lists tracked changes; "unknown" outside a repository.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
}

// machine describes the CPU (model name from /proc/cpuinfo where there is
// one), the logical cores, the memory and the OS/architecture.
func machine() string {
	cpu := runtime.GOARCH
	if m := procField("/proc/cpuinfo", "model name"); m != "" {
		cpu = m
	}
	s := fmt.Sprintf("%s, %d logical cores", cpu, runtime.NumCPU())
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		var n int64
		if _, err := fmt.Sscanf(kb, "%d", &n); err == nil {
			s += fmt.Sprintf(", %.0f GiB", float64(n)/(1<<20))
		}
	}
	return s + ", " + runtime.GOOS + "/" + runtime.GOARCH
}

// procField returns the value of the first "key : value" line of a /proc
// file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// commandLine renders args as a shell line: `go run ./bench/x` for a
// binary that go run built (its path is in the build cache), arguments
// with spaces or shell characters single-quoted.
func commandLine(args []string) string {
	if len(args) == 0 {
		return ""
	}
	head := args[0]
	if strings.Contains(head, "go-build") {
		head = "go run ./bench/" + baseName(head)
	}
	parts := []string{head}
	for _, a := range args[1:] {
		parts = append(parts, Quote(a))
	}
	return strings.Join(parts, " ")
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return strings.TrimSuffix(p, ".exe")
}

// Quote single-quotes a for a POSIX shell when it holds anything but
// letters, digits and -_./,:=+@%.
func Quote(a string) string {
	if a == "" {
		return "''"
	}
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,:=+@%", r)) {
			return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return a
}
