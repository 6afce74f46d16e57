//go:build linux

package bridge_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/hostnet"
	"github.com/rocesim/cosim/harness/netns/netnstest"
)

// Real hosts in network namespaces, each on a TAP (with segmentation
// offload, as in make tap-demo) on a port of the RTL switch, ping each
// other and run a short TCP transfer through it; every frame matches the
// golden model. The session's recording then replays
// without any TAP into byte-identical pcapng files. Nothing is left
// behind: no namespace, no TAP.
func TestHostsThroughRTLSwitch(t *testing.T) {
	netnstest.NeedTUN(t)
	for _, tool := range []string{"ping", "iperf3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: make deps installs it", tool)
		}
	}
	netnstest.NoLeaks(t)
	sc, text := switchScenario(t, 512, 3, "")
	l := startLive(t, sc, text, hostnet.Config{Hosts: 3, Prefix: "bt", Offload: true})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := l.hosts.Hosts
	for _, pair := range [][2]int{{0, 1}, {1, 2}, {2, 0}} {
		p, err := h[pair[0]].Ping(ctx, h[pair[1]].Addr, 3, 50*time.Millisecond)
		require.NoError(t, err)
		assert.Zero(t, p.Lost(), "%s -> %s", h[pair[0]].Label, h[pair[1]].Label)
	}
	ip, err := hostnet.IPerf(ctx, h[0], h[1], time.Second, "")
	require.NoError(t, err)
	assert.Positive(t, ip.Bytes, "TCP got through")
	t.Logf("iperf3 through the RTL switch: %.1f Mbit/s", ip.ReceivedBits/1e6)

	live := l.stop(t)
	assert.Positive(t, live.Taps["h1"].Padded, "ARP frames (42 bytes) were padded")
	// The stream crossed the switch as wire frames: h1's super-packets
	// split before it, h2's segments joined after it.
	sent, got := h[0].TAP.Stats().Offload, h[1].TAP.Stats().Offload
	assert.Positive(t, sent.Split, "h1: %+v", sent)
	assert.Positive(t, got.Joined, "h2: %+v", got)
	assert.Zero(t, sent.Malformed+got.Malformed)

	rec, err := bridge.LoadRecording(filepath.Join(l.cfg.OutDir, bridge.RecordingFile))
	require.NoError(t, err)
	out := t.TempDir()
	replay, err := engine.Run(context.Background(), engine.Config{Scenario: sc, Seed: rec.Seed, OutDir: out, ModelDir: models,
		Taps: rec.Ends([]string{"h1", "h2", "h3"})})
	require.NoError(t, err)
	require.True(t, replay.Pass)
	assert.Equal(t, live.Matched, replay.Matched)
	samePcaps(t, l.cfg.OutDir, out)
}
