// Package modeltest holds what the tests that run the real Verilated
// models through the harness share: finding the models a scenario names
// by engine top, running a scenario and judging its summary, and the
// engine tests' pair of linked FIFOs (the switch's random traffic and two
// NICs with and without the switch are harness/scenario/generator's).
// Finding model binaries and processes, which the protocol's tests need
// too, is cosim/modeltest.
package modeltest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/harness/engine"

	_ "github.com/rocesim/cosim/harness/builtin" // Parse knows the built-in tops
)

// DirEnv points the tests at models other than make build's.
const DirEnv = cmodeltest.DirEnv

// Dir is where the engine tests take the models from: $COSIM_MODELS_DIR,
// else build/models at the repository root.
func Dir() string { return cmodeltest.Dir(DirEnv) }

// Need checks that the binary of every "top_width" model (e.g.
// "nic_icrc_64") is built under dir and returns dir. A missing binary
// fails the test when COSIM_REQUIRE_MODELS=1 and skips it otherwise,
// saying to run make build.
func Need(tb testing.TB, dir string, models ...string) string {
	tb.Helper()
	for _, m := range models {
		top, width, err := Parse(m)
		if err != nil {
			tb.Fatal(err)
		}
		cmodeltest.NeedBinary(tb, engine.ModelPath(dir, top, width))
	}
	return dir
}

// NeedCoverage is Need for the coverage models (make models-coverage) in
// cosim/modeltest's CoverageDir, which it returns.
func NeedCoverage(tb testing.TB, models ...string) string {
	tb.Helper()
	dir := cmodeltest.CoverageDir()
	for _, m := range models {
		top, width, err := Parse(m)
		if err != nil {
			tb.Fatal(err)
		}
		cmodeltest.NeedCoverageBinary(tb, engine.ModelPath(dir, top, width))
	}
	return dir
}

// NeedModels is Need in Dir.
func NeedModels(tb testing.TB, models ...string) string {
	tb.Helper()
	return Need(tb, Dir(), models...)
}

// Parse splits a "top_width" model name ("nic_icrc_64") into its top and
// data width.
func Parse(model string) (engine.Top, int, error) {
	i := strings.LastIndexByte(model, '_')
	width, err := strconv.Atoi(model[i+1:])
	if i <= 0 || err != nil {
		return engine.Top{}, 0, fmt.Errorf("model %q is not top_width", model)
	}
	top, err := engine.LookupTop(model[:i])
	return top, width, err
}
