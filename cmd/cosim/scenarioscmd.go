package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// runScenarios lists the built-in scenarios, prints one's TOML (to copy
// and change), or names the models a scenario runs (make cosim builds
// those).
func runScenarios(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scenarios", flag.ContinueOnError)
	fs.SetOutput(stderr)
	show := fs.String("show", "", "print the TOML of built-in scenario `NAME`")
	models := fs.String("models", "", "print the models (sim/build.mk names) that `SCENARIO`, a file or a built-in name, runs")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cosim scenarios [--show NAME] [--models SCENARIO]")
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fail(exitBadInput, "scenarios: %v", err)
	}
	if len(rest) > 0 {
		return fail(exitBadInput, "scenarios: unexpected argument %q", rest[0])
	}
	switch {
	case *show != "" && *models != "":
		return fail(exitBadInput, "scenarios: --show and --models exclude each other")
	case *show != "":
		text, ok := scenario.BuiltinTOML(*show)
		if !ok {
			_, err := scenario.LoadBuiltin(*show)
			return fail(exitBadInput, "scenarios: %v", err)
		}
		_, err := stdout.Write(text)
		return err
	case *models != "":
		sc, err := scenario.Open(*models)
		if err != nil {
			return fail(exitBadInput, "scenarios: %v", err)
		}
		names, err := engine.ModelNames(sc)
		if err != nil {
			return fail(exitBadInput, "scenarios: %v", err)
		}
		fmt.Fprintln(stdout, strings.Join(names, " "))
		return nil
	}
	for _, b := range scenario.Builtins() {
		fmt.Fprintf(stdout, "%-10s %s\n", b.Name, b.Summary)
	}
	return nil
}
