package pcapio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func TestLinkWriterDeterministic(t *testing.T) {
	a := linkBytes(t, "port0", testFrames(), testCycles)
	b := linkBytes(t, "port0", testFrames(), testCycles)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, linkBytes(t, "port1", testFrames(), testCycles))

	// Nothing host specific: no OS or architecture name, no host name.
	assert.False(t, bytes.Contains(a, []byte(runtime.GOOS)), "output contains %q", runtime.GOOS)
	assert.False(t, bytes.Contains(a, []byte(runtime.GOARCH)), "output contains %q", runtime.GOARCH)
	if h, err := os.Hostname(); err == nil && len(h) >= 3 {
		assert.False(t, bytes.Contains(a, []byte(h)))
	}
	assert.True(t, bytes.Contains(a, []byte(DefaultApplication)))
	assert.False(t, bytes.Contains(a, []byte("gopacket")))

	// Through a file, too.
	dir := t.TempDir()
	for _, name := range []string{"1.pcapng", "2.pcapng"} {
		w, err := CreateLinkFile(filepath.Join(dir, name), "port0", LinkWriterOptions{})
		require.NoError(t, err)
		for i, f := range testFrames() {
			require.NoError(t, w.WriteFrame(testCycles[i], f))
		}
		require.NoError(t, w.Close())
		require.NoError(t, w.Close())
	}
	f1, err := os.ReadFile(filepath.Join(dir, "1.pcapng"))
	require.NoError(t, err)
	f2, err := os.ReadFile(filepath.Join(dir, "2.pcapng"))
	require.NoError(t, err)
	assert.Equal(t, f1, f2)
	assert.Equal(t, a, f1)
}

func TestWritePcapDeterministic(t *testing.T) {
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "1.pcap"), filepath.Join(dir, "2.pcap")
	require.NoError(t, WritePcap(p1, testFrames()))
	require.NoError(t, WritePcap(p2, testFrames()))
	b1, err := os.ReadFile(p1)
	require.NoError(t, err)
	b2, err := os.ReadFile(p2)
	require.NoError(t, err)
	assert.Equal(t, b1, b2)
	assert.Equal(t, pcapBytes(t, testFrames()), b1)
	assert.Error(t, WritePcap(p1, [][]byte{make([]byte, PcapSnapLength+1)}))
}

func TestLinkWriterFlush(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewLinkWriter(&buf, "l", LinkWriterOptions{})
	require.NoError(t, err)
	require.NoError(t, w.WriteFrame(5, testFrame(1, 60)))
	require.NoError(t, w.Flush())
	flushed := buf.Len()
	assert.Equal(t, linkBytes(t, "l", [][]byte{testFrame(1, 60)}, []uint64{5}), buf.Bytes())
	require.NoError(t, w.Close())
	assert.Equal(t, flushed, buf.Len())
	assert.ErrorIs(t, w.Flush(), errWriterClosed)
	_, err = w.AddLink("x")
	assert.ErrorIs(t, err, errWriterClosed)
}

func TestCycleTime(t *testing.T) {
	ts, err := CycleTime(12345, DefaultClockPeriodPS)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, 79008).UTC(), ts) // 12345 × 6.4 ns
	ts, err = CycleTime(1, DefaultClockPeriodPS)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, 6).UTC(), ts) // rounded down
	ts, err = CycleTime(1<<40, DefaultClockPeriodPS)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, (1<<40)*64/10).UTC(), ts)
	_, err = CycleTime(math.MaxUint64, DefaultClockPeriodPS)
	assert.Error(t, err)
	_, err = CycleTime(math.MaxInt64+1, 1000) // 2^63 ns
	assert.Error(t, err)
}

// The cycle comments' numbers are patched from the one before when only
// the last two digits change: every step must give strconv's digits.
func TestCycleDigits(t *testing.T) {
	cycles := []uint64{0, 5, 99, 100, 101, 100, 199, 200, 99, 100, 999, 1000, 1000, 1099, 1100, 1098,
		12345, 12399, 12300, 12400, 1 << 40, 1<<40 + 7, 1<<40 - 1, math.MaxUint64 - 1, math.MaxUint64, 3}
	for c := uint64(9_999_950); c < 10_000_050; c += 3 { // up across a power of ten
		cycles = append(cycles, c)
	}
	for c := uint64(10_000_050); c > 9_999_950; c -= 7 { // and down again
		cycles = append(cycles, c)
	}
	var d cycleDigits
	for i, c := range cycles {
		require.Equal(t, itoa(c), string(d.format(c)), "step %d, after %v", i, cycles[max(i-1, 0):i])
	}
}

// ngInterface is the interface LinkWriter declares, as pcapgo spells it.
func ngInterface(name string) pcapgo.NgInterface {
	return pcapgo.NgInterface{Name: name, LinkType: layers.LinkTypeEthernet, TimestampResolution: 9}
}

// refFrame is one frame for the reference writer.
type refFrame struct {
	link  int
	cycle uint64
	data  []byte
	notes []string
}

// referenceLinkBytes writes what LinkWriter writes through gopacket's
// pcapgo.NgWriter, the slow and obviously correct way LinkWriter once
// worked: the same section, interfaces, timestamps and comments.
func referenceLinkBytes(t *testing.T, links []string, opts LinkWriterOptions, frames []refFrame) []byte {
	t.Helper()
	if opts.ClockPeriodPS == 0 {
		opts.ClockPeriodPS = DefaultClockPeriodPS
	}
	if opts.Application == "" {
		opts.Application = DefaultApplication
	}
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, ngInterface(links[0]), pcapgo.NgWriterOptions{
		SectionInfo: pcapgo.NgSectionInfo{Application: opts.Application, Comment: opts.SectionComment},
	})
	require.NoError(t, err)
	for _, l := range links[1:] {
		_, err := w.AddInterface(ngInterface(l))
		require.NoError(t, err)
	}
	for _, f := range frames {
		ts, err := CycleTime(f.cycle, opts.ClockPeriodPS)
		require.NoError(t, err)
		ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(f.data), Length: len(f.data), InterfaceIndex: f.link}
		comments := append([]string{"cycle=" + itoa(f.cycle)}, f.notes...)
		require.NoError(t, w.WritePacketWithOptions(ci, f.data, pcapgo.NgPacketOptions{Comments: comments}))
	}
	require.NoError(t, w.Flush())
	return buf.Bytes()
}

// LinkWriter builds its blocks itself: they must be pcapgo's, byte for
// byte, for every padding case of frames, notes and names.
func TestLinkWriterMatchesPcapgo(t *testing.T) {
	var frames []refFrame
	for n := 1; n <= 9; n++ {
		frames = append(frames, refFrame{link: n % 3, cycle: uint64(n) * 977, data: testFrame(byte(n), 14+n)[:n]})
	}
	for i, notes := range [][]string{{""}, {"a"}, {"ab"}, {"abc"}, {"abcd"}, {"lost on the link (fault injection)", "x"}} {
		frames = append(frames, refFrame{link: i % 3, cycle: uint64(i) << 33, data: testFrame(byte(i), 60+i), notes: notes})
	}
	frames = append(frames, refFrame{cycle: 0, data: testFrame(9, 9000)}, refFrame{cycle: 1 << 40, data: testFrame(8, 1514)})
	for _, tc := range []struct {
		links []string
		opts  LinkWriterOptions
	}{
		{[]string{"icrc.out0->icrc.in1", "b", "ccc"}, LinkWriterOptions{}},
		{[]string{"", "l1", ""}, LinkWriterOptions{ClockPeriodPS: 1000, Application: "app", SectionComment: "scenario=x seed=1"}},
		{[]string{"abcd", "abcde", "abcdef"}, LinkWriterOptions{ClockPeriodPS: 3333, SectionComment: "odd"}},
	} {
		var buf bytes.Buffer
		w, err := NewLinkWriter(&buf, tc.links[0], tc.opts)
		require.NoError(t, err)
		for i, l := range tc.links[1:] {
			id, err := w.AddLink(l)
			require.NoError(t, err)
			require.Equal(t, i+1, id)
		}
		for _, f := range frames {
			require.NoError(t, w.WriteFrameOn(f.link, f.cycle, f.data, f.notes...))
		}
		require.NoError(t, w.Close())
		require.Equal(t, referenceLinkBytes(t, tc.links, tc.opts, frames), buf.Bytes(), "links %q", tc.links)
	}
}

// Frames beyond the buffer go out as they fill it, in order, and a long
// run of small frames reads back whole.
func TestLinkWriterLargeOutput(t *testing.T) {
	var frames [][]byte
	var cycles []uint64
	for i := range 20000 {
		frames = append(frames, testFrame(byte(i), 60+i%1500))
		cycles = append(cycles, uint64(i)*11)
	}
	path := writeFile(t, "big.pcapng", linkBytes(t, "l", frames, cycles))
	pkts, err := ReadAll(path)
	require.NoError(t, err)
	require.Len(t, pkts, len(frames))
	for i, p := range pkts {
		require.Equal(t, frames[i], p.Data, "packet %d", i)
		require.Equal(t, cycles[i], p.Cycle, "packet %d", i)
	}
}

func TestLinkWriterAllocatesNothing(t *testing.T) {
	w, err := NewLinkWriter(io.Discard, "l", LinkWriterOptions{})
	require.NoError(t, err)
	f := testFrame(1, 1514)
	cycle := uint64(1)
	allocs := testing.AllocsPerRun(1000, func() {
		cycle += 1234567
		if err := w.WriteFrameOn(0, cycle, f); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
	allocs = testing.AllocsPerRun(1000, func() {
		if err := w.WriteFrameOn(0, cycle, f, "corrupted on the link (fault injection)"); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// A failed write is reported, by the write and every later call.
func TestLinkWriterWriteError(t *testing.T) {
	w, err := NewLinkWriter(&failAfter{n: 1}, "l", LinkWriterOptions{})
	require.NoError(t, err)
	f := testFrame(1, 1514)
	var werr error
	for i := 0; werr == nil && i < 1000; i++ {
		werr = w.WriteFrame(uint64(i), f)
	}
	require.ErrorIs(t, werr, errShortDisk)
	assert.ErrorIs(t, w.WriteFrame(1, f), errShortDisk)
	assert.ErrorIs(t, w.Flush(), errShortDisk)
	assert.ErrorIs(t, w.Close(), errShortDisk)
}

var errShortDisk = errors.New("no space left")

// failAfter accepts n writes and fails the rest.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errShortDisk
	}
	f.n--
	return len(p), nil
}

func BenchmarkLinkWriter(b *testing.B) {
	for _, size := range []int{64, 1500} {
		b.Run(strconv.Itoa(size)+"B", func(b *testing.B) {
			w, err := NewLinkWriter(io.Discard, "l", LinkWriterOptions{})
			require.NoError(b, err)
			f := testFrame(1, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := w.WriteFrame(uint64(i)*8, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
