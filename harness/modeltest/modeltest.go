// Package modeltest holds what the tests that run the real Verilated
// models share: finding the built models (a missing one fails under
// COSIM_REQUIRE_MODELS=1, as make test sets, and skips otherwise) and
// finding a model's process to kill or stop it.
package modeltest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rocesim/cosim/harness/engine"

	_ "github.com/rocesim/cosim/harness/builtin" // Parse knows the built-in tops
)

// RequireEnv makes a missing model binary a failure instead of a skip.
const RequireEnv = "COSIM_REQUIRE_MODELS"

// Need checks that the binary of every "top_width" model (e.g.
// "nic_icrc_64") is built under dir (where make build puts them, seen from
// the test's package) and returns dir. A missing binary fails the test
// when COSIM_REQUIRE_MODELS=1 and skips it otherwise, saying to run make
// build.
func Need(tb testing.TB, dir string, models ...string) string {
	tb.Helper()
	for _, m := range models {
		top, width, err := Parse(m)
		if err != nil {
			tb.Fatal(err)
		}
		NeedBinary(tb, engine.ModelPath(dir, top, width))
	}
	return dir
}

// Parse splits a "top_width" model name ("nic_icrc_64") into its top and
// data width.
func Parse(model string) (engine.Top, int, error) {
	i := strings.LastIndexByte(model, '_')
	width, err := strconv.Atoi(model[i+1:])
	if i <= 0 || err != nil {
		return engine.Top{}, 0, fmt.Errorf("model %q is not top_width", model)
	}
	top, err := engine.LookupTop(model[:i])
	return top, width, err
}

// NeedBinary is Need for one model binary given by its path, for test tops
// that are not engine tops (the NIC's block test tops): a missing binary
// fails under COSIM_REQUIRE_MODELS=1 and skips the test otherwise.
func NeedBinary(tb testing.TB, path string) {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(tb, fmt.Sprintf("model binary %s is missing: run make build", path))
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

// Gone reports whether process pid no longer exists.
func Gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
