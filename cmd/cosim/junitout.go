package main

import (
	"fmt"
	"os"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/junit"
)

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
