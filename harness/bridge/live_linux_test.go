//go:build linux

package bridge_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/hostnet"
	"github.com/rocesim/cosim/harness/scenario"
)

// liveHosts is a bridge session on the TAPs of n namespaced hosts.
type liveHosts struct {
	hosts   *hostnet.Net
	cfg     bridge.Config
	s       *bridge.Session
	stopped bool
}

// startLive creates the hosts hc asks for (namespaces and TAPs) and
// starts a session of sc on them. The test's cleanup stops the session if
// the test did not, then removes the hosts.
func startLive(t *testing.T, sc *scenario.Scenario, text []byte, hc hostnet.Config) *liveHosts {
	t.Helper()
	hosts, err := hostnet.New(hc)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, hosts.Close()) })
	devs := map[string]bridge.Device{}
	for _, h := range hosts.Hosts {
		devs[h.Label] = h.TAP
	}
	l := &liveHosts{hosts: hosts, cfg: config(t, sc, text, devs)}
	l.s, err = bridge.Start(l.cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		if !l.stopped {
			l.s.Stop()
			l.s.Wait()
		}
	})
	return l
}

// stop ends the session and checks its summary: it passed, every frame
// matched, every counter agreed with golden.
func (l *liveHosts) stop(t *testing.T) *engine.Summary {
	t.Helper()
	l.s.Stop()
	live, err := l.s.Wait()
	l.stopped = true
	require.NoError(t, err)
	assert.True(t, live.Pass)
	assert.Zero(t, live.Mismatched+live.Missing+live.Unexpected)
	assert.Zero(t, live.CounterFails)
	return live
}
