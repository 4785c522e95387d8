package deploy

import (
	"os"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction with its continuation lines
// joined.
type instruction struct{ op, args string }

func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		cur.WriteString(strings.TrimSuffix(trimmed, "\\"))
		cur.WriteString(" ")
		if strings.HasSuffix(trimmed, "\\") {
			continue
		}
		op, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// finalStage returns the instructions after the last FROM, and that FROM.
func finalStage(ins []instruction) (from string, stage []instruction) {
	for i := len(ins) - 1; i >= 0; i-- {
		if ins[i].op == "FROM" {
			return ins[i].args, ins[i+1:]
		}
	}
	return "", nil
}

// TestDockerfile: the image is the static binary on an empty base, built
// without cgo, run as a non-root user, with a health check that needs no
// shell and a models volume.
func TestDockerfile(t *testing.T) {
	ins := parseDockerfile(t, "../Dockerfile")
	var build string
	for _, in := range ins {
		if in.op == "RUN" && strings.Contains(in.args, "go build") {
			build = in.args
		}
	}
	if !strings.Contains(build, "CGO_ENABLED=0") || !strings.Contains(build, "-trimpath") {
		t.Errorf("the build step must use CGO_ENABLED=0 and -trimpath: %q", build)
	}
	from, stage := finalStage(ins)
	if from != "scratch" && !strings.HasPrefix(from, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %q: want scratch or distroless/static", from)
	}
	seen := map[string]string{}
	for _, in := range stage {
		seen[in.op] = in.args
	}
	if u := seen["USER"]; u == "" || strings.HasPrefix(u, "0") || strings.HasPrefix(u, "root") {
		t.Errorf("final stage USER %q: want a non-root user", u)
	}
	if hc := seen["HEALTHCHECK"]; !strings.Contains(hc, `"/waggle", "health"`) || !strings.Contains(hc, "/health") {
		t.Errorf("HEALTHCHECK %q: want the binary's own `waggle health` against /health (scratch has no shell)", hc)
	}
	if !strings.Contains(seen["VOLUME"], "/models") || !strings.Contains(seen["EXPOSE"], "8080") {
		t.Errorf("want VOLUME /models and EXPOSE 8080, got %q and %q", seen["VOLUME"], seen["EXPOSE"])
	}
	if !strings.Contains(seen["ENTRYPOINT"], "/waggle") {
		t.Errorf("ENTRYPOINT %q: want the binary", seen["ENTRYPOINT"])
	}
}
