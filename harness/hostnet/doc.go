// Package hostnet puts real Linux hosts on simulated ports: hosts h1..hN,
// each a network namespace (named by harness/netns: a prefix, the process
// id and a counter, so parallel runs never collide) holding a TAP device
// with a MAC and an IPv4 address. Everything is made through harness/netns
// and harness/tap (netlink, no ip(8)) and removed again by [Net.Close],
// also after a failure halfway through [New]. The TAPs go to the bridge
// (harness/bridge) as its devices; `cosim tap-demo` and the bridge tests
// use it, and [Host.Ping] and [IPerf] measure through it.
//
// Everything here needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN). The
// package builds only on Linux.
package hostnet
