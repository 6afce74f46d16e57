// Package junittest checks JUnit XML files in tests: xmllint validates
// them against the rules Jenkins applies (harness/junit/testdata).
package junittest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/oracle"
)

// Schema is the XSD the files are checked against.
func Schema() string {
	return filepath.Join(modeltest.Root(), "harness", "junit", "testdata", "jenkins-junit.xsd")
}

// Validate fails t unless xmllint finds path valid against Schema.
// xmllint is an oracle: missing, it skips the test (or fails it under
// COSIM_REQUIRE_ORACLES=1).
func Validate(t testing.TB, path string) {
	t.Helper()
	if err := Check(t, path); err != nil {
		t.Fatal(err)
	}
}

// Check returns xmllint's complaint about path, or nil.
func Check(t testing.TB, path string) error {
	t.Helper()
	xmllint := oracle.Require(t, "xmllint", "--version")
	out, err := exec.Command(xmllint, "--noout", "--schema", Schema(), path).CombinedOutput()
	if err != nil {
		return &invalid{path: path, out: string(out)}
	}
	return nil
}

type invalid struct{ path, out string }

func (e *invalid) Error() string { return e.path + " is not valid JUnit XML:\n" + e.out }
