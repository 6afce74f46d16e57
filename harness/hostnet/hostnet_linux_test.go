//go:build linux

package hostnet_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/hostnet"
	"github.com/rocesim/cosim/harness/netns/netnstest"
)

// Hosts get their namespace, TAP, MAC and address, and Close removes it
// all.
func TestNewAndClose(t *testing.T) {
	netnstest.NeedTUN(t)
	netnstest.NoLeaks(t)
	n, err := hostnet.New(hostnet.Config{Hosts: 2, Prefix: "hn", Subnet: netip.MustParsePrefix("192.0.2.0/24")})
	require.NoError(t, err)
	defer func() { assert.NoError(t, n.Close()) }()
	require.Len(t, n.Hosts, 2)
	for i, h := range n.Hosts {
		assert.Equal(t, []string{"h1", "h2"}[i], h.Label)
		assert.Equal(t, netip.AddrFrom4([4]byte{192, 0, 2, byte(i + 1)}), h.Addr)
		l, err := h.NS.Link(h.TAP.Name())
		require.NoError(t, err, "the TAP lives in the host's namespace")
		assert.Equal(t, h.MAC, l.Attrs().HardwareAddr)
	}
}

func TestNewRejects(t *testing.T) {
	_, err := hostnet.New(hostnet.Config{Hosts: 0, Prefix: "hn"})
	assert.ErrorContains(t, err, "0 hosts")
	_, err = hostnet.New(hostnet.Config{Hosts: 1, Prefix: "hn", Subnet: netip.MustParsePrefix("2001:db8::/64")})
	assert.ErrorContains(t, err, "want IPv4")
}
