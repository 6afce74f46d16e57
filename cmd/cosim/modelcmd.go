package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rocesim/cosim/harness/modelbuild"
)

const modelUsage = `usage: cosim model build --top NAME --src DIR|FILE [--src ...] [--param K=V]... [--define NAME[=V]]...
                         [--width N] [--name NAME] [--out DIR] [--repo DIR] [--verbose]`

// runModelCmd is "cosim model build".
func runModelCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "build" {
		fmt.Fprintln(stderr, modelUsage)
		return fail(exitBadInput, "model: build what? (cosim model build)")
	}
	fs := flag.NewFlagSet("model build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s modelbuild.Spec
	fs.StringVar(&s.Top, "top", "", "the Verilog top `MODULE`, following the port convention of sim/README.md")
	fs.Func("src", "a source `DIR` (its .sv and .v files, packages first) or FILE (repeatable)", func(v string) error {
		s.Sources = append(s.Sources, v)
		return nil
	})
	fs.Func("param", "a Verilog parameter, `NAME=VALUE` (repeatable)", func(v string) error {
		s.Params = append(s.Params, v)
		return nil
	})
	fs.Func("define", "a preprocessor define, `NAME[=VALUE]` (repeatable; a planted bug behind `ifdef, say)", func(v string) error {
		s.Defines = append(s.Defines, v)
		return nil
	})
	fs.IntVar(&s.Width, "width", 64, "DATA_WIDTH: bits per beat, a multiple of 8 up to 512")
	fs.StringVar(&s.Name, "name", "", "the model's `NAME` before _<width> (default: the top's): the top name a golden model registers")
	fs.StringVar(&s.Out, "out", "build/models", "the models `DIR`: the model goes to DIR/<name>_<width>/V<top>")
	repo := fs.String("repo", "", "the checkout whose sim/ builds it (default: $"+modelbuild.RepoEnv+", the one this program was built in, or go list -m "+modelbuild.Module+")")
	fs.BoolVar(&s.Verbose, "verbose", false, "show every command (make V=1)")
	rest, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil || len(rest) != 0 || s.Top == "" || len(s.Sources) == 0 {
		fmt.Fprintln(stderr, modelUsage)
		if err == nil && len(rest) != 0 {
			err = fmt.Errorf("unexpected argument %q", rest[0])
		}
		if err == nil {
			err = errors.New("--top and --src are required")
		}
		return fail(exitBadInput, "model build: %v", err)
	}
	if s.Repo, err = modelbuild.FindRepo(ctx, *repo); err != nil {
		return fail(exitBadInput, "model build: %v", err)
	}
	m, err := modelbuild.Build(ctx, s, stdout, stderr)
	if err != nil {
		var in *modelbuild.InputError
		if errors.As(err, &in) {
			return fail(exitBadInput, "model build: %v", err)
		}
		if ctx.Err() != nil {
			return fail(exitInterrupted, "model build: interrupted")
		}
		return fail(exitFailed, "model build: %v", err)
	}
	var opt []string
	for _, g := range []struct {
		on   bool
		name string
	}{{m.Shape.CSR, "CSR bus"}, {m.Shape.DMA, "DMA port"}, {m.Shape.Idle, "idle"}} {
		if g.on {
			opt = append(opt, g.name)
		}
	}
	if len(opt) == 0 {
		opt = []string{"no optional port"}
	}
	fmt.Fprintf(stdout, "model %s: %s (%d in, %d out, DATA_WIDTH %d; %s)\n", m.Name, m.Path, m.Shape.In, m.Shape.Out,
		m.Shape.DataWidth, strings.Join(opt, ", "))
	return nil
}
