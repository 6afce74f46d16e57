//go:build linux

package tap_test

import (
	"errors"
	"fmt"
	"log"
	"net/netip"

	"github.com/rocesim/cosim/harness/netns"
	"github.com/rocesim/cosim/harness/tap"
)

// One-time set-up as root: a persistent TAP that user 1000 may open.
func ExampleOpen_persistent() {
	t, err := tap.Open(tap.Config{
		Name:    "cosim0",
		Mode:    tap.ModeCreateNew,
		Persist: true,
		Owner:   &tap.Owner{UID: 1000, GID: -1},
	})
	if err != nil {
		log.Fatal(err)
	}
	t.Close() // the TAP stays

	// Later, as user 1000, no root needed:
	t, err = tap.Open(tap.Config{Name: "cosim0", Mode: tap.ModeOpen})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	fmt.Println(t.Name(), t.Created(), t.Persistent())
}

// A host in its own namespace whose Ethernet frames come out of Read.
func ExampleTAP_Read() {
	s, err := netns.NewSetup("ex")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Cleanup()
	host, err := s.AddNamespace()
	if err != nil {
		log.Fatal(err)
	}
	t, err := tap.Open(tap.Config{Name: s.Name(), Mode: tap.ModeCreateNew})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	if err := s.MoveLink(t.Name(), s.Origin(), host); err != nil {
		log.Fatal(err)
	}
	if err := host.SetAddr(t.Name(), netip.MustParsePrefix("192.0.2.1/24")); err != nil {
		log.Fatal(err)
	}
	if err := host.LinkUp(t.Name()); err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, t.MaxFrame())
	for {
		n, err := t.Read(buf)
		var fe *tap.FrameError
		if errors.As(err, &fe) {
			continue // counted in t.Stats()
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("% x\n", buf[:n])
	}
}
