//go:build linux

package bridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/hostnet"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/netns/netnstest"
	"github.com/rocesim/cosim/harness/scenario"
)

// nicHostTOML is the RTL switch with host h1 on port 0 and the RTL NIC on
// port 1; the NIC's host port (in2/out2) is on a TAP in a namespace whose
// kernel is the NIC's host OS (h2). A real NIC hands its OS every frame
// that is not RoCEv2 and sends what the OS gives it: the OS owns the IP
// address the NIC's RoCE side shares.
const nicHostTOML = `
name = "nic-host-port"
cycles = 1_000_000_000_000

[[model]]
name = "sw"
top = "switch4"

[[model]]
name = "nic0"
top = "nic"

[[link]]
from = "nic0.out0"
to = "sw.in1"
latency = 16

[[link]]
from = "sw.out1"
to = "nic0.in0"
latency = 16

[[tap]]
name = "h1"
in = "sw.in0"
out = "sw.out0"

[[tap]]
name = "h2"
in = "nic0.in2"
out = "nic0.out2"
`

// A host on the switch pings the NIC's host (its IP address) through the
// RTL switch and the RTL NIC's host port, both ways, every frame checked
// against the golden models.
func TestPingThroughNICHostPort(t *testing.T) {
	netnstest.NeedTUN(t)
	modeltest.Need(t, models, "switch4_64", "nic_64")
	netnstest.NoLeaks(t)
	sc, err := scenario.Parse("nic-host-port.toml", []byte(nicHostTOML))
	require.NoError(t, err)
	l := startLive(t, sc, []byte(nicHostTOML), hostnet.Config{Hosts: 2, Prefix: "bn"})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h1, nicHost := l.hosts.Hosts[0], l.hosts.Hosts[1]
	p, err := h1.Ping(ctx, nicHost.Addr, 5, 50*time.Millisecond)
	require.NoError(t, err)
	assert.Zero(t, p.Lost(), "h1 -> the NIC's host")
	p, err = nicHost.Ping(ctx, h1.Addr, 3, 50*time.Millisecond)
	require.NoError(t, err)
	assert.Zero(t, p.Lost(), "the NIC's host -> h1")

	live := l.stop(t)
	assert.GreaterOrEqual(t, live.Taps["h2"].FramesOut, 8, "ARP and echo requests and replies went up the NIC's host port")
	assert.GreaterOrEqual(t, live.Taps["h2"].FramesIn, 8, "and the host's answers down")
	t.Logf("taps %+v; frames in %d out %d matched %d", live.Taps, live.FramesIn, live.FramesOut, live.Matched)
	nic := live.Counters["nic0"]
	assert.Positive(t, nic["rx_not_roce"].DUT, "the NIC classified them as not RoCEv2")
	assert.Equal(t, nic["rx_not_roce"].Golden, nic["rx_not_roce"].DUT)
}
