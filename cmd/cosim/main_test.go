package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/harness/framegen"
)

func TestUsage(t *testing.T) {
	path := writePcap(t, t.TempDir(), "valid.pcap", validFrames(t)[:1])
	cases := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"no arguments", nil, []string{"usage: cosim <command>", "no command given"}},
		{"unknown command", []string{"frobnicate"}, []string{"usage: cosim <command>", `unknown command "frobnicate"`}},
		{"check without files", []string{"check"}, []string{"usage: cosim check [--json] FILE.pcap[ng]...", "no capture file given"}},
		{"check --json without files", []string{"check", "--json"}, []string{"no capture file given"}},
		{"check with an unknown flag", []string{"check", "--bogus", path}, []string{"flag provided but not defined: -bogus"}},
		{"selftest with an unknown flag", []string{"selftest", "--bogus"}, []string{"flag provided but not defined: -bogus"}},
		{"selftest with a bad seed", []string{"selftest", "--seed", "seven"}, []string{"invalid value"}},
		{"selftest with an argument", []string{"selftest", "extra"}, []string{`unexpected argument "extra"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cosim(t, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			assert.Contains(t, stderr, "cosim: ")
		})
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"help", "-h", "--help"} {
		code, stdout, stderr := cosim(t, arg)
		assert.Equal(t, 0, code, arg)
		assert.Empty(t, stderr, arg)
		assert.Equal(t, usage, stdout, arg)
		for _, s := range []string{"check [--json] FILE.pcap[ng]...", "selftest [--out DIR] [--seed N]", "exit status"} {
			assert.Contains(t, stdout, s, arg)
		}
	}
}

func TestExitCode(t *testing.T) {
	var b bytes.Buffer
	assert.Equal(t, 0, exitCode(nil, &b))
	assert.Empty(t, b.String())

	b.Reset()
	assert.Equal(t, 2, exitCode(fail(exitBadInput, "bad %s", "input"), &b))
	assert.Equal(t, "cosim: bad input\n", b.String())

	b.Reset()
	assert.Equal(t, 1, exitCode(fail(exitFailed, "check failed"), &b))
	assert.Equal(t, "cosim: check failed\n", b.String())

	b.Reset()
	assert.Equal(t, 2, exitCode(fmt.Errorf("wrapped: %w", fail(exitBadInput, "x")), &b), "the status survives wrapping")

	b.Reset()
	assert.Equal(t, 1, exitCode(errors.New("plain"), &b), "an error without a status is a failure")
	assert.Equal(t, "cosim: plain\n", b.String())
}

func TestSelftest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "selftest")
	code, stdout, stderr := cosim(t, "selftest", "--seed", "3", "--out", dir)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Empty(t, stderr)
	ls := lines(stdout)
	require.NotEmpty(t, ls)
	assert.Equal(t, "selftest seed=3 (rerun with --seed 3)", ls[0])
	assert.Equal(t, "PASS", ls[len(ls)-1])
	n := len(framegen.KnownOpCodes())*len(framegen.Encaps) + pfc.NumPriorities + 1
	assert.Contains(t, stdout, fmt.Sprintf("golden codecs: %d/%d sample frames valid, %d/%d corrupted frames caught", n, n, n, n))
	assert.NotContains(t, stdout, "FAIL")

	samples, corrupted := filepath.Join(dir, "samples.pcap"), filepath.Join(dir, "corrupted.pcap")
	assert.FileExists(t, samples)
	assert.FileExists(t, corrupted)
	assert.Contains(t, stdout, samples)

	code, stdout, stderr = cosim(t, "check", samples)
	assert.Equal(t, 0, code, stderr)
	ls = lines(stdout)
	require.Len(t, ls, n+1)
	for _, l := range ls[:n] {
		assert.True(t, strings.HasSuffix(l, "  ok"), l)
	}
	assert.Equal(t, fmt.Sprintf("%d packets: %d RoCEv2, %d MAC control, 0 other; 0 invalid",
		n, n-pfc.NumPriorities-1, pfc.NumPriorities+1), ls[n])

	code, stdout, stderr = cosim(t, "check", corrupted)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, fmt.Sprintf("%d invalid packets", n))
	ls = lines(stdout)
	require.Len(t, ls, n+1)
	for i, l := range ls[:n] {
		assert.Regexp(t, fmt.Sprintf(`^%6d  .+  INVALID [a-z0-9-]+: `, i+1), l)
	}
	assert.Regexp(t, fmt.Sprintf(`^%d packets: .*; %d invalid$`, n, n), ls[n])
}

func TestSelftestDefaultSeedWithoutOutput(t *testing.T) {
	code, stdout, stderr := cosim(t, "selftest")
	assert.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "selftest seed=1 (rerun with --seed 1)\n"), stdout)
	assert.NotContains(t, stdout, "wrote")
	assert.True(t, strings.HasSuffix(stdout, "PASS\n"), stdout)
}

func TestSelftestIsDeterministic(t *testing.T) {
	run := func() (dir, stdout string) {
		dir = t.TempDir()
		code, stdout, stderr := cosim(t, "selftest", "--seed", "3", "--out", dir)
		require.Equal(t, 0, code, stderr)
		return dir, stdout
	}
	a, outA := run()
	b, outB := run()
	for _, name := range []string{"samples.pcap", "corrupted.pcap"} {
		x, err := os.ReadFile(filepath.Join(a, name))
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(b, name))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(x, y), "%s differs between two runs with seed 3", name)
	}
	// Apart from the directory, the output is the same too.
	assert.Equal(t, strings.ReplaceAll(outA, a, "DIR"), strings.ReplaceAll(outB, b, "DIR"))
}

func TestSelftestUnwritableOutput(t *testing.T) {
	file := writeFile(t, t.TempDir(), "file", []byte("x"))
	code, _, stderr := cosim(t, "selftest", "--out", filepath.Join(file, "sub"))
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "cosim: selftest: ")
}

// An error from the cosim package, such as a remote model that refuses
// the connection, is printed under one "cosim:" prefix: the package's
// errors name the model, not the package, so the command's prefix is the
// only one.
func TestOnePrefix(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	sc := writeFile(t, t.TempDir(), "remote.toml", []byte(fmt.Sprintf(`name = "remote"
cycles = 1000
[[model]]
name = "far"
top = "axis_fifo"
remote = %q
`, addr)))
	code, _, stderr := cosim(t, "run", sc, "--out", t.TempDir())
	assert.Equal(t, 1, code, stderr)
	assert.True(t, strings.HasPrefix(stderr, `cosim: run: model "far": connect to tcp `+addr), stderr)
	assert.Equal(t, 1, strings.Count(stderr, "cosim:"), stderr)
}
