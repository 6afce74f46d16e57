//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO given where a file is read (a scenario, a capture to check, a
// recording to replay, a scenario's pcap traffic) is refused at once with
// exit 2, naming the path; a plain open would wait forever for a writer.
func TestFIFOInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "input.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	pcapScen := filepath.Join(dir, "pcap.toml")
	require.NoError(t, os.WriteFile(pcapScen, []byte("name = \"fifo-traffic\"\ncycles = 1000\n\n"+
		"[[model]]\nname = \"f\"\ntop = \"axis_fifo\"\n\n[[traffic]]\nkind = \"pcap\"\nto = \"f.in0\"\nfile = \"input.fifo\"\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"scenario", []string{"run", fifo}},
		{"check", []string{"check", fifo}},
		{"replay", []string{"run", "--replay", fifo}},
		{"pcap traffic", []string{"run", pcapScen, "--models", needModels(t, "axis_fifo_64")}},
		{"bridge scenario", []string{"bridge", fifo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				args := tc.args
				if args[0] != "check" {
					args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
				}
				code, _, stderr, _ := cli(context.Background(), args...)
				done <- result{code, stderr}
			}()
			select {
			case r := <-done:
				assert.Equal(t, exitBadInput, r.code, r.stderr)
				assert.Contains(t, r.stderr, fifo)
				assert.Contains(t, r.stderr, "is a FIFO (reading it would wait for a writer), not a regular file")
			case <-time.After(10 * time.Second):
				t.Fatal("blocked on the FIFO")
			}
		})
	}
}
