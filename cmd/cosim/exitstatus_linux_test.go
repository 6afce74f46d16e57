//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/netns/netnstest"
)

// An --out that cannot be used (a file, a directory that cannot be
// written) is bad usage: exit 2 before anything runs, naming --out.
func TestUnusableOutIsBadUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, args := range [][]string{
		{"run", "--out", file, "--models", t.TempDir()},
		{"run", "--out", filepath.Join(file, "below"), "--models", t.TempDir()},
		{"bridge", "--out", file, "--models", t.TempDir()},
	} {
		code, stdout, stderr, _ := cli(context.Background(), args...)
		assert.Equal(t, exitBadInput, code, "%v\n%s%s", args, stdout, stderr)
		assert.Contains(t, stderr, "--out "+args[2]+": ", "%v", args)
		assert.NotContains(t, stderr, "rerun with")
	}
}

// A [[tap]] whose device exists but is not a TAP (here loopback) is a
// scenario that cannot be used: exit 2, saying what the device is.
func TestBridgeDeviceNotATAPIsBadInput(t *testing.T) {
	netnstest.NeedRoot(t)
	scen := filepath.Join(t.TempDir(), "lo.toml")
	text := strings.Replace(twoTaps(""), "name = \"h1\"\n", "name = \"h1\"\ndevice = \"lo\"\n", 1)
	require.NoError(t, os.WriteFile(scen, []byte(text), 0o644))
	code, stdout, stderr, _ := cli(context.Background(), "bridge", scen, "--out", filepath.Join(t.TempDir(), "out"),
		"--models", needModels(t, "switch4_512"))
	assert.Equal(t, exitBadInput, code, "%s%s", stdout, stderr)
	assert.Contains(t, stderr, `refusing "lo"`)
	assert.Contains(t, stderr, "not a TAP")
}
