//go:build linux

package hostnet

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os/exec"

	"github.com/rocesim/cosim/harness/netns"
	"github.com/rocesim/cosim/harness/tap"
)

// Config says how many hosts to make and how.
type Config struct {
	Hosts int
	// Prefix starts every namespace and device name (1 to
	// netns.MaxPrefix lower-case letters); netns adds the process id and
	// a counter, so parallel runs never collide.
	Prefix string
	// Subnet gives host i (from 0) the address Subnet.Addr() + i + 1,
	// with the subnet's prefix length. Default 10.77.0.0/24.
	Subnet netip.Prefix
	// Offload opens the hosts' TAPs with segmentation offload
	// (tap.Config.Offload): the hosts hand over TCP super-packets.
	Offload bool
}

// Host is one namespace with its TAP.
type Host struct {
	Label string // "h1", "h2", ...
	NS    *netns.Namespace
	TAP   *tap.TAP
	Addr  netip.Addr
	MAC   net.HardwareAddr
}

// Net is the hosts of one Config.
type Net struct {
	setup *netns.Setup
	Hosts []*Host
}

// New makes the hosts. On error everything made so far is removed.
func New(cfg Config) (*Net, error) {
	if cfg.Hosts < 1 || cfg.Hosts > 250 {
		return nil, fmt.Errorf("hostnet: %d hosts: want 1 to 250", cfg.Hosts)
	}
	if !cfg.Subnet.IsValid() {
		cfg.Subnet = netip.MustParsePrefix("10.77.0.0/24")
	}
	if !cfg.Subnet.Addr().Is4() || cfg.Subnet.Bits() > 24 {
		return nil, fmt.Errorf("hostnet: subnet %v: want IPv4, /24 or wider", cfg.Subnet)
	}
	s, err := netns.NewSetup(cfg.Prefix)
	if err != nil {
		return nil, err
	}
	n := &Net{setup: s}
	for i := range cfg.Hosts {
		if err := n.add(i, cfg.Subnet, cfg.Offload); err != nil {
			return nil, errors.Join(err, n.Close())
		}
	}
	return n, nil
}

// add makes host i: a namespace and, inside it, a TAP with a fixed MAC
// (02:00:00:00:00:i+1, so captures read easily) and an address, up.
// The host joins n.Hosts as soon as its TAP is open, so Close closes it
// whatever fails next.
func (n *Net) add(i int, subnet netip.Prefix, offload bool) error {
	ns, err := n.setup.AddNamespace()
	if err != nil {
		return err
	}
	addr := subnet.Masked().Addr()
	for range i + 1 {
		addr = addr.Next()
	}
	h := &Host{Label: fmt.Sprintf("h%d", i+1), NS: ns, Addr: addr, MAC: net.HardwareAddr{0x02, 0, 0, 0, 0, byte(i + 1)}}
	name := n.setup.Name()
	// Made inside the namespace: it lives and dies there, with its fd.
	err = ns.Do(func() error {
		var err error
		h.TAP, err = tap.Open(tap.Config{Name: name, Mode: tap.ModeCreateNew, Offload: offload})
		return err
	})
	if err != nil {
		return fmt.Errorf("hostnet: %s: %w", h.Label, err)
	}
	n.Hosts = append(n.Hosts, h)
	if err := ns.SetMAC(name, h.MAC); err != nil {
		return err
	}
	if err := ns.SetAddr(name, netip.PrefixFrom(addr, subnet.Bits())); err != nil {
		return err
	}
	return ns.LinkUp(name)
}

// Start starts cmd inside the host's namespace.
func (h *Host) Start(cmd *exec.Cmd) error { return h.NS.Start(cmd) }

// Output runs cmd inside the host's namespace and returns its standard
// output and standard error together.
func (h *Host) Output(cmd *exec.Cmd) ([]byte, error) { return h.NS.CombinedOutput(cmd) }

// Close closes every TAP (which removes it) and then the namespaces.
// Commands started in a namespace must have ended: a running process
// keeps its namespace alive. Calling Close again does nothing.
func (n *Net) Close() error {
	var errs []error
	for _, h := range n.Hosts {
		if h.TAP != nil {
			errs = append(errs, h.TAP.Close())
		}
	}
	errs = append(errs, n.setup.Cleanup())
	return errors.Join(errs...)
}
