// Package oracle runs, from tests, the independent tools that the golden
// models and the RTL are checked against (tshark, scapy). With
// COSIM_REQUIRE_ORACLES=1 (CI) a missing tool fails the test; otherwise the
// test is skipped with the reason.
package oracle

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Python is the interpreter that can import scapy (Debian python3-scapy).
const Python = "/usr/bin/python3"

// Require returns the path of prog once `prog probe...` has run
// successfully, or fails or skips the test.
func Require(t testing.TB, prog string, probe ...string) string {
	t.Helper()
	path, err := exec.LookPath(prog)
	if err == nil {
		var out []byte
		if out, err = exec.Command(path, probe...).CombinedOutput(); err != nil {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(out))
		}
	}
	if err != nil {
		msg := fmt.Sprintf("oracle %s %s unavailable: %v", prog, strings.Join(probe, " "), err)
		if os.Getenv("COSIM_REQUIRE_ORACLES") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (set COSIM_REQUIRE_ORACLES=1 to fail instead)")
	}
	return path
}

// Tshark requires tshark.
func Tshark(t testing.TB) string { return Require(t, "tshark", "--version") }

// Scapy requires the interpreter that imports scapy.contrib.roce.
func Scapy(t testing.TB) string { return Require(t, Python, "-c", "import scapy.contrib.roce") }

// Run runs prog and returns its standard output split in lines; it fails
// the test when prog fails.
func Run(t testing.TB, prog string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1") // no __pycache__ in testdata
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}
