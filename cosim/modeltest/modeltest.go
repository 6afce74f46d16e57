// Package modeltest holds what the tests that run the real Verilated
// models share, below the harness: finding the built model binaries (a
// missing one fails under COSIM_REQUIRE_MODELS=1, as make test sets, and
// skips otherwise) and finding a model's process to kill or stop it. It
// imports nothing of the harness, so that the protocol's tests (cosim)
// can use it; harness/modeltest adds what knows the engine's tops.
package modeltest

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// RequireEnv makes a missing model binary a failure instead of a skip.
const RequireEnv = "COSIM_REQUIRE_MODELS"

// Root is the repository root seen from the working directory, a test's
// package directory: "..", "../.." and so on, up to the go.mod. Tests
// live at every depth (cosim, harness/engine, rtl/nic/tb), and build/ is
// at the root.
func Root() string {
	rel := "."
	for range 8 {
		if _, err := os.Stat(filepath.Join(rel, "go.mod")); err == nil {
			return rel
		}
		rel = filepath.Join(rel, "..")
	}
	return "."
}

// DirEnv names the directory of the models the tests run instead of
// make build's (a mutation campaign runs a device's directed tests on a
// mutant's).
const DirEnv = "COSIM_MODELS_DIR"

// Dir is the directory of the built models: the one the environment
// variable env names (DirEnv, or a test's own), else build/models at the
// repository root, where make build puts them.
func Dir(env string) string {
	return cmp.Or(os.Getenv(env), filepath.Join(Root(), "build", "models"))
}

// NeedBinary checks that a model binary, given by its path, is built: a
// missing one fails the test under COSIM_REQUIRE_MODELS=1 and skips it
// otherwise, saying to run make build.
func NeedBinary(tb testing.TB, path string) {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(tb, "model binary "+path+" is missing: run make build")
	}
}

// CoverageDirEnv names the directory of the coverage models (make
// models-coverage) the tests run instead of build/models-coverage.
const CoverageDirEnv = "COSIM_COVERAGE_MODELS_DIR"

// CoverageDir is the directory of the coverage models: the one
// CoverageDirEnv names, else build/models-coverage at the repository root.
func CoverageDir() string {
	return cmp.Or(os.Getenv(CoverageDirEnv), filepath.Join(Root(), "build", "models-coverage"))
}

// NeedCoverageBinary is NeedBinary for a model built with coverage: the
// message says how to build it.
func NeedCoverageBinary(tb testing.TB, path string) {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(tb, "coverage model binary "+path+" is missing: run make models-coverage")
	}
}

// NeedTool is NeedBinary for a command on PATH that building models takes
// (make, verilator).
func NeedTool(tb testing.TB, name string) {
	tb.Helper()
	if _, err := exec.LookPath(name); err != nil {
		missing(tb, name+" is missing: run make deps")
	}
}

// missing fails the test under COSIM_REQUIRE_MODELS=1 and skips it otherwise.
func missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg + " (set " + RequireEnv + "=1 to fail instead)")
}

// Child finds the process of model instance name among this process's
// children (models are started with --socket <dir>/<name>.sock); 0 when
// there is none.
func Child(name string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmd, []byte("/"+name+".sock")) {
			return pid
		}
	}
	return 0
}

// State is the scheduler state letter /proc shows for process pid ('R',
// 'S', 'T' stopped, 'Z' zombie, ...); 0 when it cannot be read (gone, or
// no /proc).
func State(pid int) byte {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// Gone reports whether process pid no longer exists.
func Gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
