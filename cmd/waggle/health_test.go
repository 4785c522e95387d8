package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthCommand: `waggle health` succeeds on a 200 and fails on anything
// else or on no answer, which is what a container HEALTHCHECK reads.
func TestHealthCommand(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	if out, err := runCLI(t, "health", "--url", srv.URL+"/health"); err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("healthy server: %q, %v", out, err)
	}
	status = http.StatusServiceUnavailable
	if _, err := runCLI(t, "health", "--url", srv.URL+"/health"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("loading server: got %v, want a 503 error", err)
	}
	srv.Close()
	if _, err := runCLI(t, "health", "--url", srv.URL+"/health", "--timeout", "1s"); err == nil {
		t.Fatal("no server: health succeeded")
	}
}
