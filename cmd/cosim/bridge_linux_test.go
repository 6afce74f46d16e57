//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/netns"
	"github.com/rocesim/cosim/harness/netns/netnstest"
	"github.com/rocesim/cosim/harness/tap"
)

// self runs this test binary as the cosim command (TestMain).
func self(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "COSIM_TEST_MAIN=1")
	return cmd
}

// liveBridge is a `cosim bridge` subprocess on two TAPs it creates (the
// second with segmentation offload), both up and carrying the kernel's
// own IPv6 chatter (neighbour and multicast listener messages) through
// the switch.
type liveBridge struct {
	cmd     *exec.Cmd
	setup   *netns.Setup
	devs    []string
	out     string
	printed *strings.Builder // stdout, complete once exited has a value
	stderr  *bytes.Buffer
	exited  chan error
}

func startBridge(t *testing.T) *liveBridge {
	netnstest.NeedTUN(t)
	models, err := filepath.Abs(needModels(t, "switch4_512"))
	require.NoError(t, err)
	netnstest.NoLeaks(t)
	setup, err := netns.NewSetup("cb")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, setup.Cleanup()) })
	b := &liveBridge{setup: setup, devs: []string{setup.Name(), setup.Name()}, printed: &strings.Builder{},
		stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	dir := t.TempDir()
	scen := filepath.Join(dir, "bridge.toml")
	text := twoTaps("create = true")
	for i, d := range b.devs {
		text = strings.Replace(text, fmt.Sprintf("name = \"h%d\"\n", i+1), fmt.Sprintf("name = \"h%d\"\ndevice = %q\n", i+1, d), 1)
	}
	text = strings.Replace(text, fmt.Sprintf("device = %q\n", b.devs[1]), fmt.Sprintf("device = %q\noffload = true\n", b.devs[1]), 1)
	require.Contains(t, text, "offload = true")
	require.NoError(t, os.WriteFile(scen, []byte(text), 0o644))
	b.out = filepath.Join(dir, "out")

	b.cmd = self(t, "bridge", scen, "--out", b.out, "--models", models)
	stdout, err := b.cmd.StdoutPipe()
	require.NoError(t, err)
	b.cmd.Stderr = b.stderr
	require.NoError(t, b.cmd.Start())
	t.Cleanup(func() { b.cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		b.printed.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "bridging;") {
			break
		}
	}
	go func() {
		rest, _ := io.ReadAll(stdout)
		b.printed.Write(rest)
		b.exited <- b.cmd.Wait()
	}()
	for _, d := range b.devs {
		require.NoError(t, waitFor(func() bool { _, err := tap.Inspect(d); return err == nil }), "the bridge creates %s", d)
		require.NoError(t, setup.Origin().LinkUp(d))
	}
	time.Sleep(1500 * time.Millisecond)
	return b
}

// wait returns the bridge's exit error once it has ended by itself.
func (b *liveBridge) wait(t *testing.T, why string) error {
	t.Helper()
	select {
	case err := <-b.exited:
		return err
	case <-time.After(60 * time.Second):
		b.cmd.Process.Kill()
		t.Fatalf("cosim bridge did not end after %s; stderr:\n%s", why, b.stderr.String())
		return nil
	}
}

// ended checks what every end of a session leaves: the recording, the
// captures, and no TAP the bridge created.
func (b *liveBridge) ended(t *testing.T) {
	t.Helper()
	_, err := bridge.LoadRecording(filepath.Join(b.out, bridge.RecordingFile))
	assert.NoError(t, err)
	assert.NotEmpty(t, capture(t, b.out))
	for _, d := range b.devs {
		_, err := tap.Inspect(d)
		assert.ErrorIs(t, err, tap.ErrNotFound, "the bridge removes the TAP %s it created", d)
	}
}

// SIGINT ends `cosim bridge` cleanly: the traffic in flight drains, the
// summary, the pcapng files and the recording are written, the exit status
// is 0, and the TAPs the bridge created (one with offload) are gone.
func TestBridgeSIGINT(t *testing.T) {
	b := startBridge(t)
	require.NoError(t, b.cmd.Process.Signal(os.Interrupt))
	err := b.wait(t, "SIGINT")
	require.NoError(t, err, "exit status; stdout:\n%s\nstderr:\n%s", b.printed.String(), b.stderr.String())
	assert.Contains(t, b.printed.String(), "PASS")
	assert.Contains(t, b.stderr.String(), "bridge ", "live counters on stderr")
	s := summaryOf(t, b.out)
	assert.Equal(t, true, s["pass"])
	assert.Contains(t, s, "taps")
	b.ended(t)
}

// A TAP deleted mid-session ends the session by itself: what is in flight
// drains and is checked, the summary (pass false, the reason), the pcapng
// files and the recording are written, the other TAP is removed, and the
// exit status is 1 with a message naming the tap and its device.
func TestBridgeTAPGone(t *testing.T) {
	b := startBridge(t)
	require.NoError(t, tap.Delete(b.devs[0]))
	err := b.wait(t, "its TAP was deleted")
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr:\n%s", b.stderr.String())
	assert.Equal(t, 1, ee.ExitCode())
	want := fmt.Sprintf("tap h1: device %s is gone (", b.devs[0])
	assert.Contains(t, b.stderr.String(), "cosim: bridge: "+want)
	s := summaryOf(t, b.out)
	assert.Equal(t, false, s["pass"])
	assert.Contains(t, s["error"], want)
	assert.Equal(t, float64(0), s["mismatched"], "what the switch emitted was still checked")
	b.ended(t)
}

// Without root, `cosim bridge` cannot create a TAP and `cosim tap-demo`
// cannot make namespaces: both say what they need. (Run as nobody.)
func TestWithoutRootSaysWhatItNeeds(t *testing.T) {
	netnstest.NeedRoot(t)
	// nobody must reach the binary and a scenario: a world-readable copy.
	dir, err := os.MkdirTemp("", "cosim-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o777))
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(dir, "cosim")
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	scen := filepath.Join(dir, "bridge.toml")
	require.NoError(t, os.WriteFile(scen, []byte(strings.ReplaceAll(twoTaps("create = true"), `name = "h`, `name = "nobody`)), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bridge", scen, "--out", filepath.Join(dir, "out")}, "needs CAP_NET_ADMIN"},
		{[]string{"tap-demo", "--out", filepath.Join(dir, "demo")}, "tap-demo: needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN)"},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "COSIM_TEST_MAIN=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v: %s", err, out)
		assert.Equal(t, 1, ee.ExitCode(), "%s", out)
		assert.Contains(t, string(out), tc.want)
	}
}

// waitFor polls cond for up to 20 seconds.
func waitFor(cond func() bool) error {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return nil
		}
	}
	return errors.New("timed out")
}

// tap-demo checks its flags before it needs root or builds anything.
func TestTapDemoBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tap-demo", "--seconds", "-1"}, "--seconds must be 0 or more"},
		{[]string{"tap-demo", "--pings", "0"}, "--pings 1 or more"},
		{[]string{"tap-demo", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"tap-demo", "extra"}, `unexpected argument "extra"`},
	} {
		code, stdout, stderr := cosim(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}

// The pace line gives the stream's ceiling: cycles a second times the
// port's width.
func TestTapDemoPaceLine(t *testing.T) {
	assert.Equal(t, "simulation during the stream: 2.00 Mcycles/s; at that pace a 512-bit port carries at most 1024 Mbit/s",
		paceLine(10_000_000, 5*time.Second, 512))
	assert.Equal(t, "simulation during the stream: 0.00 Mcycles/s; at that pace a 64-bit port carries at most 0 Mbit/s",
		paceLine(0, 0, 64), "no time passed: no division by zero")
}
