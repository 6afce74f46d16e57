package main

import (
	"errors"
	"os"
)

// usableOut makes the output directory and proves it can be written, so
// that a bad --out is reported as bad usage before anything runs, not as
// a failed run after the models started.
func usableOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err // the path is --out's, which the caller names
		}
		return err
	}
	f, err := os.CreateTemp(dir, ".cosim-probe-")
	if err != nil {
		return errors.New("cannot write there")
	}
	f.Close()
	return os.Remove(f.Name())
}
