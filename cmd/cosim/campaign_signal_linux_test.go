//go:build linux

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/campaign"
)

// SIGINT stops a campaign cleanly: the run in flight is stopped and not
// counted as ended, what ended is merged, the exit status is 130, and
// --resume runs only the runs that did not end.
func TestCampaignInterruptAndResume(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "switch4_64"))
	require.NoError(t, err)
	dir := t.TempDir()
	scen, err := filepath.Abs("testdata/pinned/switch_incast_pfc.toml")
	require.NoError(t, err)
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte("seeds = { from = 1, count = 6 }\n[[scenario]]\nfile = \""+scen+"\"\n"), 0o644))
	out := filepath.Join(dir, "out")

	cmd := self(t, "campaign", "run", file, "--jobs", "1", "--out", out, "--models", models)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	var printed strings.Builder
	for lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "2/6 runs") {
			break // two runs ended; the third is running
		}
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	exited := make(chan error, 1)
	go func() {
		for lines.Scan() {
			printed.WriteString(lines.Text() + "\n")
		}
		exited <- cmd.Wait()
	}()
	select {
	case err = <-exited:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the campaign did not stop after SIGINT:\n%s", printed.String())
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v\n%s", err, printed.String())
	assert.Equal(t, 130, ee.ExitCode(), printed.String())
	assert.Contains(t, printed.String(), "stopped: ")
	ended := 0
	for _, id := range []string{"0000", "0001", "0002", "0003", "0004", "0005"} {
		if _, err := os.Stat(filepath.Join(out, "runs", id, campaign.OutcomeFile)); err == nil {
			ended++
		}
	}
	assert.GreaterOrEqual(t, ended, 2)
	assert.Less(t, ended, 6, "the interrupt stopped the campaign")

	t.Setenv("COSIM_TEST_MAIN", "1")
	code, again, stderr := cosim(t, "campaign", "run", file, "--jobs", "2", "--out", out, "--models", models, "--resume")
	require.Equal(t, 0, code, "%s\n%s", again, stderr)
	assert.Contains(t, again, "6 runs, "+string(rune('0'+6-ended))+" to run")
	assert.Contains(t, again, "6 runs: 6 passed, 0 failed")
}
