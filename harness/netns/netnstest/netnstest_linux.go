//go:build linux

package netnstest

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
)

// runDir is netns.RunDir, spelled out because netns's own tests use this
// package and an import would make a cycle.
const runDir = "/run/netns"

// skip skips the test, except under CI (CI set in the environment), where
// root is promised and a skip would hide the tests.
func skip(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s; CI runs as root, so this must not be skipped there", reason)
	}
	t.Skip(reason)
}

// NeedRoot skips the test unless it runs as root (namespaces, netlink
// changes and bind mounts need CAP_NET_ADMIN and CAP_SYS_ADMIN).
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		skip(t, "needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) to create namespaces and links")
	}
}

// NeedTUN skips the test unless it runs as root and /dev/net/tun exists.
func NeedTUN(t testing.TB) {
	t.Helper()
	NeedRoot(t)
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		skip(t, "needs /dev/net/tun (load the tun module): "+err.Error())
	}
}

// Snapshot lists, in the calling thread's namespace, the links and the
// entries of netns.RunDir whose names this process made with
// netns.Setup.Name. Other processes (a second test binary, an engineer's
// shell) may add and remove their own meanwhile; only our names can be
// ours to leak.
func Snapshot(t testing.TB) []string {
	t.Helper()
	var got []string
	links, err := netlink.LinkList()
	// A dump that raced with another process's link changes comes back
	// marked interrupted; ask again.
	for try := 0; errors.Is(err, netlink.ErrDumpInterrupted) && try < 20; try++ {
		links, err = netlink.LinkList()
	}
	if err != nil {
		t.Fatalf("listing links: %v", err)
	}
	for _, l := range links {
		if ours(l.Attrs().Name) {
			got = append(got, "link "+l.Attrs().Name)
		}
	}
	ents, err := os.ReadDir(runDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("listing %s: %v", runDir, err)
	}
	for _, e := range ents {
		if ours(e.Name()) {
			got = append(got, "netns "+e.Name())
		}
	}
	slices.Sort(got)
	return got
}

func ours(name string) bool {
	return strings.Contains(name, strconv.Itoa(os.Getpid())+"-")
}

// NoLeaks takes a Snapshot now and registers a cleanup that takes another
// and fails the test if they differ. Call it before anything else that
// registers cleanups, so its check runs after them all.
func NoLeaks(t testing.TB) {
	t.Helper()
	before := Snapshot(t)
	t.Cleanup(func() {
		after := Snapshot(t)
		if !slices.Equal(before, after) {
			t.Errorf("left behind: before the test %s, after it %s", show(before), show(after))
		}
	})
}

func show(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%q", s)
}
