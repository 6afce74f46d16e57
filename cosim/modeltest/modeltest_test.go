package modeltest

import (
	"path/filepath"
	"testing"
)

// From this package's directory the repository is two levels up, and
// build/models is found there unless the environment names another.
func TestRootAndDir(t *testing.T) {
	if got := Root(); got != filepath.Join("..", "..") {
		t.Fatalf("Root() = %q, want ../..", got)
	}
	t.Setenv(DirEnv, "")
	if got, want := Dir(DirEnv), filepath.Join("..", "..", "build", "models"); got != want {
		t.Fatalf("Dir() = %q, want %q", got, want)
	}
	t.Setenv(DirEnv, "elsewhere")
	if got := Dir(DirEnv); got != "elsewhere" {
		t.Fatalf("Dir() with %s set = %q", DirEnv, got)
	}
}

func TestBeats(t *testing.T) {
	for _, c := range []struct {
		n, width int
		want     uint64
	}{{0, 64, 0}, {1, 64, 1}, {8, 64, 1}, {9, 64, 2}, {64, 512, 1}, {65, 512, 2}, {1500, 512, 24}} {
		if got := Beats(c.n, c.width); got != c.want {
			t.Errorf("Beats(%d, %d) = %d, want %d", c.n, c.width, got, c.want)
		}
	}
}

// The counters line as sim/model.cpp prints it, among other lines.
func TestDMACounters(t *testing.T) {
	out := []string{"model dma_copy_64: ready",
		"model dma_copy_64: dma: 3 reads, 4096 bytes read; 2 writes, 100 bytes written", "bye"}
	if got, want := DMACounters(t, out), [4]uint64{3, 4096, 2, 100}; got != want {
		t.Fatalf("DMACounters = %v, want %v", got, want)
	}
}
