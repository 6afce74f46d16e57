package slurmtest

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// A cluster comes up with its one partition, and its cleanup leaves no
// daemon, job step or task behind.
func TestStartStop(t *testing.T) {
	var c *Cluster
	t.Run("up", func(t *testing.T) {
		start := time.Now()
		c = Start(t)
		t.Logf("node idle after %v", time.Since(start).Round(time.Millisecond))
		out, err := c.Command("sinfo", "-h", "-o", "%P %D %c").CombinedOutput()
		if got, want := strings.TrimSpace(string(out)), c.Partition+"* 1 "+strconv.Itoa(c.CPUs); err != nil || got != want {
			t.Errorf("sinfo: got %q, %v, want %q", got, err, want)
		}
		// The leftover check must see the live cluster: its three daemons
		// at least.
		if n := len(c.leftovers()); n < 3 {
			t.Errorf("leftovers() finds %d processes of a live cluster, want at least 3", n)
		}
		// A job still running at the end must be cancelled by cleanup.
		if out, err := c.Command("sbatch", "--chdir="+c.Dir, "--output=/dev/null", "--wrap=sleep 300").CombinedOutput(); err != nil {
			t.Fatalf("sbatch: %v: %s", err, out)
		}
	})
	if c == nil {
		return
	}
	for _, d := range []*daemon{c.munged, c.ctld, c.slurmd} {
		select {
		case <-d.exited:
		default:
			t.Errorf("%s still running after cleanup", d.name)
		}
	}
	if left := c.leftovers(); len(left) > 0 {
		t.Errorf("left after cleanup: %v", left)
	}
}
