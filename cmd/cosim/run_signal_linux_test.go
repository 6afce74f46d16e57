//go:build linux

package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SIGINT or SIGTERM to `cosim run` interrupts it: it says so, exits 130,
// writes its summary (pass false, the reason) and its captures, and
// reports nothing it did not see: no model failure, no missing frame, no
// rerun line.
func TestRunInterrupted(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "nic_icrc_64"))
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := self(t, "run", "testdata/run_long.toml", "--seed", "3", "--out", out, "--models", models)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			lines := bufio.NewScanner(stdout)
			require.True(t, lines.Scan(), "the run's first line")
			printed := lines.Text() + "\n"
			exited := make(chan error, 1)
			go func() {
				rest, _ := io.ReadAll(stdout)
				printed += string(rest)
				exited <- cmd.Wait()
			}()
			time.Sleep(time.Second) // well into the run
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("cosim run did not end after %v; stderr:\n%s", sig, stderr.String())
			}
			t.Logf("stdout:\n%s\nstderr:\n%s", printed, stderr.String())
			assert.Equal(t, exitInterrupted, cmd.ProcessState.ExitCode())
			assert.Contains(t, stderr.String(), "cosim: run: interrupted at cycle ")
			assert.NotContains(t, stderr.String(), "model ")
			assert.NotContains(t, stderr.String(), "rerun with")
			assert.NotContains(t, printed, "MISSING")
			s := summaryOf(t, out)
			assert.Equal(t, false, s["pass"])
			assert.True(t, strings.HasPrefix(s["error"].(string), "interrupted at cycle "), "%v", s["error"])
			assert.Zero(t, s["missing"])
			assert.NotEmpty(t, capture(t, out), "the captures up to the interruption")
			files, err := filepath.Glob(filepath.Join(out, "mismatch-*"))
			require.NoError(t, err)
			assert.Empty(t, files, "no mismatch files")
			_, err = os.Stat(filepath.Join(out, "summary.json"))
			assert.NoError(t, err)
		})
	}
}
