package pcapio

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oracle returns the path of an external tool, skipping the test when it
// is missing unless COSIM_REQUIRE_ORACLES=1.
func oracle(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("COSIM_REQUIRE_ORACLES") == "1" {
			t.Fatalf("%s not found and COSIM_REQUIRE_ORACLES=1: %v", name, err)
		}
		t.Skipf("%s not found: %v", name, err)
	}
	return p
}

// run runs a tool and returns its standard output; stderr (tshark warns
// about running as root) is only shown on failure.
func run(t *testing.T, tool string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s %s: %s", tool, strings.Join(args, " "), stderr.String())
	return stdout.String()
}

func TestTsharkReadsLinkWriterOutput(t *testing.T) {
	tshark := oracle(t, "tshark")
	path := writeFile(t, "link.pcapng", linkBytes(t, "port0", testFrames(), testCycles))
	out := run(t, tshark, "-r", path, "-T", "fields",
		"-e", "frame.comment", "-e", "frame.len", "-e", "frame.time_epoch", "-e", "frame.interface_name")
	want := "cycle=0\t60\t0.000000000\tport0\n" +
		"cycle=1\t1514\t0.000000006\tport0\n" +
		"cycle=12345\t77\t0.000079008\tport0\n" +
		"cycle=1099511627776\t4200\t7036.874417766\tport0\n"
	assert.Equal(t, want, out)

	// Several links and an extra note.
	var buf bytes.Buffer
	w, err := NewLinkWriter(&buf, "a->b", LinkWriterOptions{})
	require.NoError(t, err)
	_, err = w.AddLink("b->a")
	require.NoError(t, err)
	require.NoError(t, w.WriteFrame(7, testFrame(1, 60)))
	require.NoError(t, w.WriteFrameOn(1, 9, testFrame(2, 66), "nak"))
	require.NoError(t, w.Close())
	path = writeFile(t, "two.pcapng", buf.Bytes())
	out = run(t, tshark, "-r", path, "-T", "fields", "-e", "frame.comment", "-e", "frame.len", "-e", "frame.interface_name")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, "cycle=7\t60\ta->b", lines[0])
	assert.Contains(t, lines[1], "cycle=9")
	assert.Contains(t, lines[1], "nak")
	assert.True(t, strings.HasSuffix(lines[1], "\t66\tb->a"), lines[1])
}

func TestTsharkReadsWritePcapOutput(t *testing.T) {
	tshark := oracle(t, "tshark")
	path := filepath.Join(t.TempDir(), "frames.pcap")
	require.NoError(t, WritePcap(path, testFrames()))
	out := run(t, tshark, "-r", path, "-T", "fields", "-e", "frame.len", "-e", "frame.time_epoch")
	assert.Equal(t, "60\t0.000000000\n1514\t0.000001000\n77\t0.000002000\n4200\t0.000003000\n", out)
}

// TestReadsTsharkOutput converts our pcap with tshark into pcapng and
// nanosecond pcap (with tshark's own section options) and reads them back.
func TestReadsTsharkOutput(t *testing.T) {
	tshark := oracle(t, "tshark")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.pcap")
	require.NoError(t, WritePcap(src, testFrames()))
	for _, format := range []string{"pcapng", "nsecpcap", "pcap"} {
		dst := filepath.Join(dir, "out."+format)
		run(t, tshark, "-r", src, "-F", format, "-w", dst)
		pkts, err := ReadAll(dst)
		require.NoError(t, err, format)
		require.Len(t, pkts, len(testFrames()), format)
		for i, p := range pkts {
			assert.Equal(t, testFrames()[i], p.Data, format)
			assert.Equal(t, int64(i)*1000, p.Timestamp.UnixNano(), format)
		}
	}
}
