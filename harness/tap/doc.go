// Package tap opens Linux TAP devices and moves whole Ethernet frames
// through them, so real hosts (usually in their own network namespace, see
// package harness/netns) can send traffic into the simulated network.
//
// [Open] attaches to a named TAP or creates one, through
// github.com/songgao/water (see Offload below), after checking the name
// with netlink:
//
//   - It attaches only to TAP devices: a name that exists as anything else
//     (veth, bridge, loopback, a TUN device) is refused with a
//     *[DeviceError] naming the device and its kind, never reused.
//   - A TAP that existed before Open keeps its flags: it stays persistent
//     and keeps its owner and MTU. (water always writes the persist flag,
//     so a naive non-persistent open of a persistent TAP deletes it on
//     close.)
//   - Opening by name only looks in the calling thread's network namespace.
//     A TAP that was moved into another namespace is not there any more,
//     and the kernel would quietly create a new one under the same name;
//     [ModeOpen] reports [ErrNotFound] instead. To reach it, open it from
//     inside its namespace (netns.Namespace.Do).
//
// A persistent TAP created with an [Owner] can later be opened by that user
// without root, provided /dev/net/tun is readable and writable by them
// (mode 0666 is the usual default; some containers ship 0600).
//
// [TAP.Read] and [TAP.Write] carry one frame per call, without preamble or
// FCS. Frames that cannot be delivered (shorter than an Ethernet header,
// longer than MTU plus header and one VLAN tag, larger than the caller's
// buffer) are counted in [Stats] and returned as a *[FrameError]; the
// caller decides whether to go on. [TAP.Close] wakes a blocked Read.
//
// With [Config.Offload] the TAP carries a virtio-net header and offers the
// host TSO and checksum offload, as a NIC would: Read cuts the host's TCP
// super-packets into wire frames and fills in checksums the host left, and
// [TAP.WriteFrames] joins runs of one flow's segments into one
// super-packet for the receiving host (offload.go has the rules and their
// sources). Callers still see one wire frame per Read. water cannot ask
// for the header, and the kernel takes a TAP's flags only when a
// descriptor attaches, so such a TAP is opened without water. Offloads
// never outlive the session: Close takes them back from a TAP that stays,
// and a plain Open clears any left.
//
// The package works only on Linux; elsewhere Open returns
// [ErrUnsupported].
package tap
