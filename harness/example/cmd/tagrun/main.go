// Command tagrun runs a scenario file whose [[model]] tables may name the
// tagger (top = "vlan_tagger") beside cosim's own tops, every frame checked
// against the golden models, as `cosim run` does for cosim's tops alone:
// cosim's command knows only the devices it imports, and a program of
// one's own that imports its device's package knows them all.
//
//	go run ./cmd/tagrun [--seed N] [--out DIR] [--models DIRS] SCENARIO.toml
//
// Exit status: 0 when every check passed, 1 when one failed, 2 for bad
// usage or a bad scenario.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"

	_ "example.com/vlantagger/tagger"            // the tagger's top
	_ "github.com/rocesim/cosim/harness/builtin" // cosim's tops: the switch, the NIC, ...
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command; the test calls it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tagrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "the run's seed (default: the scenario's, else 1)")
	out := fs.String("out", filepath.Join("out", "tagrun"), "where summary.json and the captures go")
	// cosim's models are in its checkout's build/models, two levels up as
	// go.mod's replace says, unless $COSIM_MODELS_DIR names them.
	cosimModels := cmp.Or(os.Getenv("COSIM_MODELS_DIR"), filepath.Join("..", "..", "build", "models"))
	models := fs.String("models", strings.Join([]string{filepath.Join("build", "models"), cosimModels}, string(filepath.ListSeparator)),
		"the model directories, joined with ':': this project's, then cosim's")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: tagrun [--seed N] [--out DIR] [--models DIRS] SCENARIO.toml")
		return 2
	}
	sc, err := scenario.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "tagrun:", err)
		return 2
	}
	s := *seed
	if s == 0 && sc.Seed != nil {
		s = *sc.Seed
	}
	if s == 0 {
		s = 1
	}
	fmt.Fprintf(stdout, "run %s seed=%d out=%s\n", sc.Name, s, *out)
	sum, err := engine.Run(ctx, engine.Config{Scenario: sc, Seed: s, OutDir: *out, ModelDir: *models, Report: stdout})
	var bad *engine.ScenarioError
	switch {
	case errors.As(err, &bad):
		fmt.Fprintln(stderr, "tagrun:", err)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "tagrun:", err)
		return 1
	}
	fmt.Fprintf(stdout, "frames in %d out %d: matched %d, mismatched %d, missing %d, unexpected %d; counter mismatches %d\n",
		sum.FramesIn, sum.FramesOut, sum.Matched, sum.Mismatched, sum.Missing, sum.Unexpected, sum.CounterFails)
	if !sum.Pass {
		fmt.Fprintln(stdout, "FAIL")
		return 1
	}
	fmt.Fprintln(stdout, "PASS")
	return 0
}
