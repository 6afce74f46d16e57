package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// RTL coverage (Config.RTLCoverage): every model the run starts is given
// --coverage-file OutDir/coverage/<instance>.dat and writes Verilator's
// line, toggle and cover-property counts there when it ends (sim/README.md,
// Coverage). Only models built by make models-coverage take the flag; a
// remote model (model.remote) is started by someone else and is not asked.

// CoverageDir is the directory under a run's OutDir that holds its models'
// coverage files.
const CoverageDir = "coverage"

// ErrNoCoverageBuild is why a run with RTLCoverage refuses to start: a
// model binary was built without coverage.
var ErrNoCoverageBuild = errors.New("built without coverage")

// coverageFile is where node n writes its coverage, relative to OutDir.
func coverageFile(n *node) string { return filepath.Join(CoverageDir, n.name+".dat") }

// coverageArgs are the model arguments that ask node n for its coverage.
func (r *run) coverageArgs(n *node) []string {
	if !r.cfg.RTLCoverage || n.spec.Remote != "" {
		return nil
	}
	p, err := filepath.Abs(filepath.Join(r.cfg.OutDir, coverageFile(n)))
	if err != nil {
		p = filepath.Join(r.cfg.OutDir, coverageFile(n))
	}
	return []string{"--coverage-file", p}
}

// checkCoverageBuilds makes OutDir/coverage and asks every model binary the
// run starts whether it was built with coverage: a coverage build prints
// its HELLO text for "--coverage-file F --info", any other refuses the flag
// (exit 2, "built without coverage"). Asked once before anything starts, so
// that a models directory of normal builds is one clear error rather than
// a model that dies at its start. A missing binary is left to the start to
// report, as without coverage.
func (r *run) checkCoverageBuilds(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Join(r.cfg.OutDir, CoverageDir), 0o755); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, n := range r.nodes {
		if n.spec.Remote != "" {
			continue
		}
		path := ModelPath(r.cfg.ModelDir, n.top, n.width)
		if seen[path] {
			continue
		}
		seen[path] = true
		if _, err := os.Stat(path); err != nil {
			continue
		}
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		var out bytes.Buffer
		cmd := exec.CommandContext(c, path, "--coverage-file", os.DevNull, "--info")
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		if err != nil {
			said, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
			return fmt.Errorf("model %s: %s was %w: make models-coverage builds the coverage models into build/models-coverage (the binary said %q)",
				n.name, path, ErrNoCoverageBuild, said)
		}
	}
	return nil
}

// coverageFiles lists the coverage files the run's models wrote, relative
// to OutDir, in node order. A model that died before its end (killed)
// wrote none.
func (r *run) coverageFiles() []string {
	if !r.cfg.RTLCoverage {
		return nil
	}
	var files []string
	for _, n := range r.nodes {
		if n.spec.Remote != "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(r.cfg.OutDir, coverageFile(n))); err == nil {
			files = append(files, coverageFile(n))
		}
	}
	return files
}
