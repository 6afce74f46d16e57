//go:build linux

package netns_test

import (
	"fmt"
	"log"
	"net/netip"
	"os/exec"

	"github.com/vishvananda/netlink"

	"github.com/rocesim/cosim/harness/netns"
)

// Two namespaces joined by a veth pair, pinging each other.
func ExampleSetup() {
	s, err := netns.NewSetup("ex")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Cleanup() // removes the namespaces and the veth pair
	a, err := s.AddNamespace()
	if err != nil {
		log.Fatal(err)
	}
	b, err := s.AddNamespace()
	if err != nil {
		log.Fatal(err)
	}
	va, vb := s.Name(), s.Name()
	if err := s.Origin().AddLink(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: va}, PeerName: vb}); err != nil {
		log.Fatal(err)
	}
	for _, end := range []struct {
		ns   *netns.Namespace
		link string
		addr string
	}{{a, va, "192.0.2.1/24"}, {b, vb, "192.0.2.2/24"}} {
		if err := s.MoveLink(end.link, s.Origin(), end.ns); err != nil {
			log.Fatal(err)
		}
		if err := end.ns.SetAddr(end.link, netip.MustParsePrefix(end.addr)); err != nil {
			log.Fatal(err)
		}
		if err := end.ns.LinkUp(end.link); err != nil {
			log.Fatal(err)
		}
	}
	out, err := a.CombinedOutput(exec.Command("ping", "-c", "1", "192.0.2.2"))
	fmt.Printf("%s%v\n", out, err)
}
