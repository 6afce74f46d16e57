package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/junit"
	"github.com/rocesim/cosim/harness/report"
)

// results writes what a run leaves besides summary.json: report.html in
// its out directory, and the --junit file if asked for. err is the run's;
// a result that cannot be written is added to it.
func results(err error, out string, sum *engine.Summary, ju *junitFile, rerun string) error {
	if sum != nil {
		if rerr := report.Write(out, sum, report.Options{Rerun: rerun, Version: buildVersion()}); rerr != nil {
			err = errors.Join(err, fmt.Errorf("report: %w", rerr))
		}
	}
	if jerr := ju.write(sum, rerun); jerr != nil {
		err = errors.Join(err, jerr)
	}
	return err
}

// buildVersion is the module version the Go tool stamped, or "(devel)".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

const junitHelp = "write JUnit XML for CI to `FILE`: a test case per link, model's counters and workload, with the rerun command"

// junitFile is --junit: made before the run, so that a path that cannot be
// written is bad usage at once rather than a lost result at the end.
type junitFile struct{ f *os.File }

func createJUnit(path string) (*junitFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &junitFile{f}, nil
}

// write fills the file with the run's results, or removes it when the run
// left no summary; nil writes nothing.
func (j *junitFile) write(sum *engine.Summary, rerun string) error {
	if j == nil {
		return nil
	}
	if sum == nil {
		j.f.Close()
		return os.Remove(j.f.Name())
	}
	err := junit.Write(j.f, junit.Run{Summary: sum, Rerun: rerun})
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--junit %s: %w", j.f.Name(), err)
	}
	return nil
}
