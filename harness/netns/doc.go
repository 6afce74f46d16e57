// Package netns creates Linux network namespaces and configures the links in
// them, for tests and for the TAP bridge that puts real hosts on simulated
// ports.
//
// Everything goes through netlink (github.com/vishvananda/netlink) and
// setns(2) (github.com/vishvananda/netns); nothing shells out to ip(8). The
// namespaces are still the ones `ip netns` knows: each is bind-mounted under
// /run/netns, so `ip netns exec NAME ...` works on them while they exist.
//
// A [Setup] owns what it makes. Every step that changes the system (a
// namespace, a link it adds, a link it moves, an address, a MAC, a link it
// brings up outside its own namespaces) pushes its undo onto a stack, and
// [Setup.Cleanup] runs that stack backwards. So cleanup removes exactly what
// this Setup made, also when a step failed halfway, and calling it twice is
// harmless. Links moved into a namespace are moved back before the namespace
// goes, so a device the caller only borrowed (a persistent TAP, say) is not
// destroyed with the namespace.
//
// Names come from [Setup.Name]: the Setup's short prefix, the process id and
// a counter, so parallel tests and parallel test binaries never collide, and
// every name fits a Linux interface name (15 bytes).
//
// Work inside a namespace runs through [Namespace.Do], which locks a fresh
// goroutine to its OS thread, switches that thread and switches it back;
// commands started with [Namespace.Start] inherit the namespace from that
// thread. Everything here needs CAP_NET_ADMIN and CAP_SYS_ADMIN (root).
//
// The package builds only on Linux.
package netns
