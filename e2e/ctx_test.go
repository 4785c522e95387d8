package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestCtxSizeFlags starts the binary with llama-server's -c / -np / -kvu
// combinations and reads /props: -c is the total, split c/np per slot
// without -kvu, shared whole with it; no -np is 4 unified slots; -kvu
// alone keeps 1 slot (llama-server: "add -kvu to disable this").
func TestCtxSizeFlags(t *testing.T) {
	m := model(t, "stories260K-f32.gguf")
	for _, tc := range []struct {
		args     string
		slots, n int
	}{
		{"-c 512", 4, 512},
		{"-c 512 -np 2", 2, 256},
		{"-c 512 -np 2 -kvu", 2, 512},
		{"-c 512 -kvu", 1, 512},
	} {
		url := serve(t, append([]string{"-m", m}, strings.Fields(tc.args)...)...)
		resp, err := http.Get(url + "/props")
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Slots int `json:"total_slots"`
			Gen   struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if p.Slots != tc.slots || p.Gen.NCtx != tc.n {
			t.Errorf("%s: %d slots of n_ctx %d, want %d of %d", tc.args, p.Slots, p.Gen.NCtx, tc.slots, tc.n)
		}
	}
}
