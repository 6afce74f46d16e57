package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/bridge/bridgetest"
	"github.com/rocesim/cosim/harness/scenario"
)

// TestMain lets tests run this binary as the cosim command itself (to
// send it signals, or run it as another user): COSIM_TEST_MAIN=1 makes it
// main.
func TestMain(m *testing.M) {
	if os.Getenv("COSIM_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// twoTaps is the switch at 512 bits with taps h1 and h2; tapKeys is added
// to each [[tap]].
func twoTaps(tapKeys string) string {
	s := "name = \"two-taps\"\ncycles = 1_000_000_000_000\n\n[[model]]\nname = \"sw\"\ntop = \"switch4\"\ndata_width = 512\n"
	for p := range 2 {
		s += fmt.Sprintf("\n[[tap]]\nname = \"h%d\"\nin = \"sw.in%d\"\nout = \"sw.out%d\"\n", p+1, p, p)
		s += tapKeys + "\n"
	}
	return s
}

// record runs a short live session with in-memory hosts and returns its
// output directory.
func record(t *testing.T, models string) string {
	t.Helper()
	text := twoTaps("")
	sc, err := scenario.Parse("two-taps.toml", []byte(text))
	require.NoError(t, err)
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	out := t.TempDir()
	s, err := bridge.Start(bridge.Config{Scenario: sc, Text: []byte(text), Seed: 5, OutDir: out, ModelDir: models,
		Devices: map[string]bridge.Device{"h1": h1, "h2": h2}})
	require.NoError(t, err)
	for i := range 50 {
		f := make([]byte, 60+i*29)
		copy(f, []byte{0x02, 0, 0, 0, 0, byte(2 - i%2), 0x02, 0, 0, 0, 0, byte(1 + i%2), 0x08, 0x00})
		f[len(f)-1] = byte(i)
		if i%2 == 0 {
			h1.Send(f)
		} else {
			h2.Send(f)
		}
		if i%10 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	// Bounded: a session that stops forwarding fails the test, not hangs it.
	for deadline := time.Now().Add(20 * time.Second); h1.Unread()+h2.Unread() > 0; {
		if time.Now().After(deadline) {
			s.Stop()
			t.Fatalf("the session left %d frames unread after 20 s", h1.Unread()+h2.Unread())
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	s.Stop()
	sum, err := s.Wait()
	require.NoError(t, err)
	require.True(t, sum.Pass)
	require.Equal(t, 50, sum.FramesIn)
	return out
}

// cosim run --replay re-runs a recorded session from the recording alone,
// with its seed, into byte-identical pcapng files.
func TestRunReplay(t *testing.T) {
	models := needModels(t, "switch4_512")
	live := record(t, models)
	out := t.TempDir()
	rec := filepath.Join(live, bridge.RecordingFile)
	code, stdout, stderr, _ := cli(context.Background(), "run", "--replay", rec, "--out", out, "--models", models)
	require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "run two-taps ("+rec+" (recorded scenario)) seed=5")
	assert.Contains(t, stdout, "tap h1: from host 25")
	assert.True(t, strings.HasSuffix(stdout, "PASS\n"))
	files, err := filepath.Glob(filepath.Join(live, "*--*.pcapng"))
	require.NoError(t, err)
	require.Len(t, files, 6, "h1 and h2 in, sw.out0 and sw.out1 to them, sw.out2 and sw.out3 to sinks")
	for _, f := range files {
		a, err := os.ReadFile(f)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(out, filepath.Base(f)))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs", filepath.Base(f))
	}

	// The scenario can be given too; one without those taps is refused.
	scen := filepath.Join(t.TempDir(), "other.toml")
	require.NoError(t, os.WriteFile(scen, []byte(strings.Replace(twoTaps(""), `name = "h2"`, `name = "h9"`, 1)), 0o644))
	code, _, stderr, _ = cli(context.Background(), "run", scen, "--replay", rec, "--out", t.TempDir(), "--models", models)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "no [[tap]] named h2")
}

// A scenario with taps needs a bridge or a recording: cosim run says so.
func TestRunRefusesLiveTaps(t *testing.T) {
	models := needModels(t, "switch4_512")
	scen := filepath.Join(t.TempDir(), "taps.toml")
	require.NoError(t, os.WriteFile(scen, []byte(twoTaps("")), 0o644))
	code, _, stderr, _ := cli(context.Background(), "run", scen, "--out", t.TempDir(), "--models", models)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "tap h1 is a live device: attach it with `cosim bridge`")
}

func TestBridgeUsage(t *testing.T) {
	code, _, stderr, _ := cli(context.Background(), "bridge", "--no-pcap", "a.toml", "b.toml")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "one scenario at a time")
	code, _, stderr, _ = cli(context.Background(), "bridge", "--bogus")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, bridgeUsage)
	scen := filepath.Join(t.TempDir(), "bad.toml")
	require.NoError(t, os.WriteFile(scen, []byte(twoTaps("persist = true")), 0o644))
	code, _, stderr, _ = cli(context.Background(), "bridge", scen)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "tap[0].persist: persist, owner and group apply to a TAP the bridge creates")
}
