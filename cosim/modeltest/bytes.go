package modeltest

import (
	"bytes"
	"fmt"
	"testing"
)

// Beats is how many beats of width bits carry n bytes.
func Beats(n, width int) uint64 { return uint64((n + width/8 - 1) / (width / 8)) }

// SameBytes fails with the first differing byte rather than two dumps of
// up to 4 KiB.
func SameBytes(t testing.TB, want, got []byte, format string, args ...any) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	t.Fatalf("%s: got %d bytes, want %d; first difference at byte %d: got % x, want % x",
		fmt.Sprintf(format, args...), len(got), len(want), i, got[i:min(i+8, len(got))], want[i:min(i+8, len(want))])
}
