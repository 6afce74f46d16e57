// Package tb holds the tagger's tests: the Verilated rtl/vlan_tagger.sv
// driven through cosim's testbench, its golden model (package tagger)
// checking every frame underneath. TestMain builds the model with
// `cosim model build` before any test runs.
package tb

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tb "github.com/rocesim/cosim/harness/testbench"

	_ "example.com/vlantagger/tagger" // registers the top vlan_tagger
)

// requireEnv makes a model that cannot be built a failure rather than a
// skip, as cosim's own tests do under make test.
const requireEnv = "COSIM_REQUIRE_MODELS"

var (
	// models is where this project's models go (build/models at its
	// root); cosimModels is cosim's own, for its switch.
	models, cosimModels string
	buildErr            error
)

// cosim runs the cosim command at the version this module requires (go.mod
// lists it as a tool: go get -tool github.com/rocesim/cosim/cmd/cosim).
func cosim(args ...string) error {
	cmd := exec.Command("go", append([]string{"tool", "cosim"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("cosim %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// buildModel builds the tagger at 64 bits into dir, with the defines given.
func buildModel(dir string, defines ...string) error {
	args := []string{"model", "build", "--top", "vlan_tagger", "--src", filepath.Join("..", "rtl"), "--width", "64", "--out", dir}
	for _, d := range defines {
		args = append(args, "--define", d)
	}
	return cosim(args...)
}

func TestMain(m *testing.M) {
	models = filepath.Join("..", "build", "models")
	buildErr = buildModel(models)
	// cosim's checkout, where make build put the switch.
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/rocesim/cosim").Output()
	if err != nil && buildErr == nil {
		buildErr = fmt.Errorf("go list -m github.com/rocesim/cosim: %v", err)
	}
	cosimModels = cmp.Or(os.Getenv("COSIM_MODELS_DIR"), filepath.Join(strings.TrimSpace(string(dir)), "build", "models"))
	os.Exit(m.Run())
}

// need skips a test when the model could not be built, or fails it
// under COSIM_REQUIRE_MODELS=1.
func need(t *testing.T) {
	t.Helper()
	if buildErr == nil {
		return
	}
	if os.Getenv(requireEnv) == "1" {
		t.Fatal(buildErr)
	}
	t.Skipf("%v (set %s=1 to fail instead)", buildErr, requireEnv)
}

// modelDirs are the directories a bench takes models from: this
// project's first, then cosim's.
func modelDirs(first string) tb.Option { return tb.ModelDir(first, cosimModels) }

// newTagger starts a bench of the tagger alone, its ports tag.in0,
// tag.in1, tag.out0 and tag.out1.
func newTagger(t *testing.T, opts ...tb.Option) *tb.Bench {
	t.Helper()
	need(t)
	return tb.Model(t, "vlan_tagger_64", append([]tb.Option{tb.Name("tag"), modelDirs(models)}, opts...)...)
}

// The planted bug's model, built once, when a test first asks for it.
var mutant = sync.OnceValues(func() (string, error) {
	dir := filepath.Join("..", "build", "mutant")
	return dir, buildModel(dir, "MUTANT_TCI_ORDER")
})
