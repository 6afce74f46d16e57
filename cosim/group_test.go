//go:build linux

package cosim_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
)

// A model started through a wrapper script runs as the script's child.
// When the model hangs, the harness kills its whole process group, so the
// child does not outlive the run.
func TestHungModelBehindWrapperIsKilledWithItsChildren(t *testing.T) {
	cfg := fakeConfig(t, "wrapped0", "--mode", "stall", "--fail-at", "1")
	wrapper := filepath.Join(t.TempDir(), "wrapper.sh")
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/bin/sh\n\"$COSIM_WRAPPED\" \"$@\" &\nwait\n"), 0o755))
	cfg.Env = append(cfg.Env, "COSIM_WRAPPED="+cfg.Path)
	cfg.Path = wrapper
	cfg.Step = 500 * time.Millisecond
	m, _ := startFake(t, cfg)
	steps(t, m, 1)
	_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	require.ErrorIs(t, err, cosim.ErrTimeout)
	child := childPid(t, m.LastOutput())
	require.NotEqual(t, m.Pid(), child, "the model runs as the wrapper's child")
	m.Close()
	assert.Eventually(t, func() bool { return dead(child) }, 2*time.Second, 10*time.Millisecond,
		"the wrapper's child, pid %d, is still running", child)
}

// childPid reads the fake model's own pid from its first line.
func childPid(t *testing.T, lines []string) int {
	t.Helper()
	re := regexp.MustCompile(`fakemodel \S+: pid (\d+)`)
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			pid, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			return pid
		}
	}
	require.Fail(t, "no pid in the model's output", "%q", lines)
	return 0
}

// dead reports a process that is gone or a zombie nobody reaped yet (an
// orphan's new parent may be slow to reap it).
func dead(pid int) bool {
	st := cmodeltest.State(pid)
	return gone(pid) || st == 0 || st == 'Z'
}
