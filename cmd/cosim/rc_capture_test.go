package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every frame the golden RC model sends passes `cosim check`: the capture
// is a lossy two-node run kept equal to the model's output by golden/rc's
// TestCapture.
func TestCheckGoldenRCCapture(t *testing.T) {
	code, stdout, stderr := cosim(t, "check", "../../golden/rc/testdata/pair.pcap")
	require.Equal(t, 0, code, "stderr: %s\nstdout tail: %s", stderr, tail(stdout, 5))
	require.Contains(t, stdout, " 0 invalid")
}

func tail(s string, n int) string {
	l := lines(s)
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
