package bridge_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/bridge/bridgetest"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/tap"
)

// settle waits until the bridge has read everything the hosts sent and
// the simulation is idle again.
func settle(t *testing.T, pipes ...*bridgetest.Pipe) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, p := range pipes {
		for p.Unread() > 0 {
			require.True(t, time.Now().Before(deadline), "the bridge stopped reading %s", p.Name())
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(100 * time.Millisecond)
}

func stop(t *testing.T, s *bridge.Session) *engine.Summary {
	t.Helper()
	s.Stop()
	sum, err := s.Wait()
	require.NoError(t, err)
	return sum
}

// Bad input from a host is counted by reason, never lost silently and
// never a failure of the check: runts, oversize frames (as a TAP reports
// them and as the bridge finds them), unknown EtherTypes (forwarded),
// short frames (padded to 60 bytes and forwarded), and a burst far faster
// than the simulation into a queue of 8 frames.
func TestBadInputIsCounted(t *testing.T) {
	sc, text := switchScenario(t, 512, 2, "")
	sc.Taps[0].Queue = 8
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	var status bytes.Buffer
	cfg := config(t, sc, text, map[string]bridge.Device{"h1": h1, "h2": h2})
	cfg.Status, cfg.StatusEvery = &status, 50*time.Millisecond // read after Wait, when its writer is done
	s, err := bridge.Start(cfg)
	require.NoError(t, err)

	h2.Send(frame(mac(1), mac(2), 0x0800, 100, 0)) // the switch learns h2
	require.NotNil(t, h1.Receive(10*time.Second))

	h1.Send(frame(mac(2), mac(1), 0x0800, 10, 0)) // shorter than a header
	h1.SendErr(&tap.FrameError{Device: "h1", Dir: tap.DirRead, Reason: tap.ReasonRunt, Len: 9, Limit: 14})
	h1.Send(frame(mac(2), mac(1), 0x0800, 1600, 0)) // over the TAP's 1518
	h1.SendErr(&tap.FrameError{Device: "h1", Dir: tap.DirRead, Reason: tap.ReasonOversize, Len: 9000, Limit: 1518})
	settle(t, h1)
	unknown := frame(mac(2), mac(1), 0x88B5, 200, 1)
	h1.Send(unknown)
	assert.Equal(t, unknown, h2.Receive(10*time.Second), "an unknown EtherType is forwarded")
	arp := frame([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, mac(1), 0x0806, 42, 2)
	h1.Send(arp)
	got := h2.Receive(10 * time.Second)
	require.Len(t, got, bridge.MinFrame, "a 42-byte ARP request reaches the other host padded")
	assert.Equal(t, arp, got[:42])
	assert.Equal(t, make([]byte, 18), got[42:], "padded with zeros")

	const burst = 3000
	for i := range burst {
		h1.Send(frame(mac(2), mac(1), 0x0800, 1514, i))
	}
	settle(t, h1)
	sum := stop(t, s)

	assert.True(t, sum.Pass, "bad input is not a failed check")
	assert.Zero(t, sum.Mismatched)
	st := sum.Taps["h1"]
	assert.Equal(t, 2, st.Drops[bridge.DropRunt])
	assert.Equal(t, 2, st.Drops[bridge.DropOversize])
	assert.Positive(t, st.Drops[bridge.DropQueueFull], "a burst of %d frames into a queue of 8", burst)
	assert.Equal(t, 1, st.UnknownEtherType)
	assert.Equal(t, 1, st.Padded)
	// Every frame the host sent is accounted for: it entered the model or
	// was dropped with a reason.
	sent := burst + 2 // and the unknown EtherType and the ARP; the four bad ones were read errors or drops
	assert.Equal(t, sent, st.FramesIn+st.Drops[bridge.DropQueueFull])
	assert.Equal(t, st.Drops[bridge.DropQueueFull], sum.Drops["tap_queue_full"], "summary drops name the reason")
	assert.Equal(t, 2, sum.Drops["tap_runt"])
	assert.Equal(t, st.FramesIn, sum.Taps["h2"].FramesOut, "h2 got every frame of h1's that entered")
	line := status.String()
	for _, want := range []string{"queue_full=", "runt=2", "oversize=2", "padded 1", "unknown-ethertype 1", "mismatched 0", "Mcycles/s", "of real time"} {
		assert.Contains(t, line, want, "the live status line")
	}
}

// A live session and its replay give byte-identical pcapng files on every
// link; the replay needs nothing but the recording. Keep-warm windows
// (empty ones while idle) change nothing in that. A session without link
// captures (NoLinkPcaps) writes none, and its recording replays all the
// same: the replay writes them.
func TestReplayIsByteIdentical(t *testing.T) {
	t.Run("sleeping", func(t *testing.T) { testReplayIsByteIdentical(t, 0, false) })
	t.Run("keep-warm", func(t *testing.T) { testReplayIsByteIdentical(t, bridge.DefaultKeepWarm, false) })
	t.Run("no-pcap", func(t *testing.T) { testReplayIsByteIdentical(t, bridge.DefaultKeepWarm, true) })
}

func testReplayIsByteIdentical(t *testing.T, keepWarm time.Duration, noPcap bool) {
	sc, text := switchScenario(t, 512, 3, "")
	pipes := map[string]*bridgetest.Pipe{"h1": bridgetest.New("h1"), "h2": bridgetest.New("h2"), "h3": bridgetest.New("h3")}
	devs := map[string]bridge.Device{}
	for n, p := range pipes {
		devs[n] = p
	}
	cfg := config(t, sc, text, devs)
	cfg.KeepWarm = keepWarm
	cfg.NoLinkPcaps = noPcap
	s, err := bridge.Start(cfg)
	require.NoError(t, err)
	// Traffic at wall-clock times the replay cannot know: bursts, pauses,
	// every size, broadcasts, both ways.
	for round := range 20 {
		for i, src := range []string{"h1", "h2", "h3"} {
			dst := mac((i+1)%3 + 1)
			if round%7 == 0 {
				dst = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
			}
			pipes[src].Send(frame(dst, mac(i+1), 0x0800, 42+(round*97+i*31)%1473, round))
		}
		if round%5 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	settle(t, pipes["h1"], pipes["h2"], pipes["h3"])
	live := stop(t, s)
	require.True(t, live.Pass)
	require.Positive(t, live.FramesIn)

	rec, err := bridge.LoadRecording(filepath.Join(cfg.OutDir, bridge.RecordingFile))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), rec.Seed)
	assert.Equal(t, text, rec.Scenario, "the recording keeps the scenario as given")
	out := t.TempDir()
	replay, err := engine.Run(context.Background(), engine.Config{Scenario: sc, Seed: rec.Seed, OutDir: out, ModelDir: models,
		Taps: rec.Ends([]string{"h1", "h2", "h3"})})
	require.NoError(t, err)
	require.True(t, replay.Pass)
	assert.Equal(t, live.FramesIn, replay.FramesIn)
	assert.Equal(t, live.FramesOut, replay.FramesOut)
	assert.Equal(t, live.Matched, replay.Matched)
	if !noPcap {
		samePcaps(t, cfg.OutDir, out)
		return
	}
	pcaps, err := filepath.Glob(filepath.Join(cfg.OutDir, "*.pcapng"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(cfg.OutDir, bridge.RecordingFile)}, pcaps, "no link capture, the recording")
	for _, link := range []string{"h1--sw.in0", "sw.out0--h1", "h2--sw.in1", "sw.out1--h2", "h3--sw.in2", "sw.out2--h3"} {
		assert.FileExists(t, filepath.Join(out, link+".pcapng"), "the replay writes every link's capture")
	}
}

// samePcaps requires the same link pcapng files, byte for byte, in both
// directories.
func samePcaps(t *testing.T, a, b string) {
	t.Helper()
	fa, err := filepath.Glob(filepath.Join(a, "*--*.pcapng"))
	require.NoError(t, err)
	fb, err := filepath.Glob(filepath.Join(b, "*--*.pcapng"))
	require.NoError(t, err)
	require.NotEmpty(t, fa)
	require.Len(t, fb, len(fa))
	for i := range fa {
		require.Equal(t, filepath.Base(fa[i]), filepath.Base(fb[i]))
		x, err := os.ReadFile(fa[i])
		require.NoError(t, err)
		y, err := os.ReadFile(fb[i])
		require.NoError(t, err)
		assert.True(t, bytes.Equal(x, y), "%s differs between the live session and its replay (%d and %d bytes)", filepath.Base(fa[i]), len(x), len(y))
	}
}

// The bridge attaches only to TAP devices, and only to existing ones
// unless told to create: harness/tap refuses the rest, and Start says
// which tap.
func TestRefusesWhatIsNotItsTAP(t *testing.T) {
	for _, tc := range []struct {
		name, device string
		want         error
		text         string
	}{
		{"loopback", "lo", tap.ErrNotTAP, "not a TAP"},
		{"missing", "cosimnone0", tap.ErrNotFound, "no device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, text := switchScenario(t, 512, 1, "")
			sc.Taps[0].Device = tc.device
			_, err := bridge.Start(config(t, sc, text, nil))
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), "tap h1")
			assert.Contains(t, err.Error(), tc.text)
		})
	}
}

func TestLoadRecordingRejects(t *testing.T) {
	sc, text := switchScenario(t, 512, 1, "")
	cfg := config(t, sc, text, map[string]bridge.Device{"h1": bridgetest.New("h1")})
	s, err := bridge.Start(cfg)
	require.NoError(t, err)
	stop(t, s)
	_, err = bridge.LoadRecording(filepath.Join(cfg.OutDir, "missing.pcapng"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	// A run's own pcapng is not a recording: its section comment differs.
	link, err := filepath.Glob(filepath.Join(cfg.OutDir, "*--*.pcapng"))
	require.NoError(t, err)
	require.NotEmpty(t, link)
	_, err = bridge.LoadRecording(link[0])
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "not a cosim recording"), err.Error())
}

// An idle session sleeps instead of simulating: simulated time advances
// only while frames are in flight, and a host frame after a pause enters
// at the first cycle of the next window, right after the last one.
func TestIdleSessionWaits(t *testing.T) {
	sc, text := switchScenario(t, 512, 2, "")
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	cfg := config(t, sc, text, map[string]bridge.Device{"h1": h1, "h2": h2})
	s, err := bridge.Start(cfg)
	require.NoError(t, err)
	h1.Send(frame(mac(2), mac(1), 0x0800, 98, 0))
	require.NotNil(t, h2.Receive(10*time.Second))
	time.Sleep(500 * time.Millisecond) // 78 million cycles of wall-clock time at 156.25 MHz
	h2.Send(frame(mac(1), mac(2), 0x0800, 98, 1))
	require.NotNil(t, h1.Receive(10*time.Second))
	sum := stop(t, s)
	require.True(t, sum.Pass)
	assert.Less(t, sum.Cycles, uint64(2000), "the pause cost no simulated time")
	assert.Less(t, sum.Windows, 20, "nor windows")

	rec, err := bridge.LoadRecording(filepath.Join(cfg.OutDir, bridge.RecordingFile))
	require.NoError(t, err)
	require.Len(t, rec.Frames["h1"], 1)
	require.Len(t, rec.Frames["h2"], 1)
	first, second := rec.Frames["h1"][0].Cycle, rec.Frames["h2"][0].Cycle
	assert.Less(t, second-first, uint64(100), "the second frame entered a few windows after the first (cycles %d and %d)", first, second)
}

// With keep-warm, an idle session steps empty windows while hosts are
// active: simulated time moves on during a pause (a few cycles a
// millisecond), every frame is still checked and recorded, and the
// second frame enters well after the first. The idle windows are no
// stall, however far they take simulated time past the drain limit.
func TestKeepWarmStepsWhileIdle(t *testing.T) {
	sc, text := switchScenario(t, 512, 2, "drain = 100")
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	cfg := config(t, sc, text, map[string]bridge.Device{"h1": h1, "h2": h2})
	cfg.KeepWarm = time.Millisecond
	s, err := bridge.Start(cfg)
	require.NoError(t, err)
	h1.Send(frame(mac(2), mac(1), 0x0800, 98, 0))
	require.NotNil(t, h2.Receive(10*time.Second))
	time.Sleep(200 * time.Millisecond)
	h2.Send(frame(mac(1), mac(2), 0x0800, 98, 1))
	require.NotNil(t, h1.Receive(10*time.Second))
	sum := stop(t, s)
	require.True(t, sum.Pass)
	assert.Equal(t, 2, sum.FramesIn)
	// About 200 windows on an idle machine; a busy one runs fewer.
	assert.Greater(t, sum.Windows, 20, "empty windows while idle")
	rec, err := bridge.LoadRecording(filepath.Join(cfg.OutDir, bridge.RecordingFile))
	require.NoError(t, err)
	first, second := rec.Frames["h1"][0].Cycle, rec.Frames["h2"][0].Cycle
	assert.Greater(t, second-first, uint64(100), "simulated time moved on during the pause (cycles %d and %d)", first, second)
}

// Frames reach a host in the order the model emitted them, whether the
// run loop writes them itself (the first of a window) or hands them to
// the port's writer (the rest), and the counts are final when the session
// ends: a stream of full-size frames, sent all at once.
func TestStreamReachesHostInOrder(t *testing.T) {
	sc, text := switchScenario(t, 512, 2, "")
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	s, err := bridge.Start(config(t, sc, text, map[string]bridge.Device{"h1": h1, "h2": h2}))
	require.NoError(t, err)
	h2.Send(frame(mac(1), mac(2), 0x0800, 60, 0)) // the switch learns h2
	require.NotNil(t, h1.Receive(10*time.Second))
	const n = 200 // within the default queue of 1024
	for i := range n {
		h1.Send(frame(mac(2), mac(1), 0x0800, 1514, i))
	}
	for i := range n {
		got := h2.Receive(10 * time.Second)
		require.NotNil(t, got, "frame %d", i)
		require.Equal(t, frame(mac(2), mac(1), 0x0800, 1514, i), got, "frame %d", i)
	}
	sum := stop(t, s)
	require.True(t, sum.Pass)
	assert.Equal(t, n, sum.Taps["h2"].FramesOut)
	assert.Equal(t, n+1, sum.FramesIn)
}
