package main

import (
	"fmt"
	"net/http"
	"time"
)

// healthCmd is `waggle health`: GET a server's /health and exit 0 only on
// 200. It exists for container images without a shell or curl (the release
// image is `scratch`), whose HEALTHCHECK runs the binary itself.
type healthCmd struct {
	URL     string        `help:"Health endpoint to query." default:"http://127.0.0.1:8080/health" env:"WAGGLE_HEALTH_URL"`
	Timeout time.Duration `help:"Give up after this long." default:"3s"`
}

func (c healthCmd) Run() error {
	client := &http.Client{Timeout: c.Timeout}
	resp, err := client.Get(c.URL)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %s", c.URL, resp.Status)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}
