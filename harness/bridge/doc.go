// Package bridge runs the models in real time against Linux TAP devices
// (`cosim bridge`), so real hosts, usually in network namespaces, send
// traffic through the RTL while every frame is checked against the golden
// models by the same engine and scoreboard as `cosim run`.
//
// # Two time domains
//
// Hosts live in wall-clock time, models in cycles (harness/DESIGN.md,
// Time). A goroutine per tap reads the host's frames into a bounded queue. The
// engine takes them at window boundaries: each frame is stamped with the
// first cycle of the window it enters, and only as many as the port can
// start sending in that window; the rest wait. When nothing is in flight
// and every model is idle the engine does not simulate idle windows, it
// sleeps until a host sends something, so simulated time advances only
// while there is work. Otherwise it steps short windows (the scenario's
// [bridge] window, default engine.DefaultLiveWindow cycles), stretched for
// the frames still entering to come out, so a frame reaches the other host
// soon; while frames queue up it steps long ones (max_window, default
// engine.DefaultLiveMaxWindow), which carry more per round trip to the
// model, and sends each before the replies to the ones in flight are in
// (up to five in flight), so the model simulates while the engine checks
// and delivers (stamps and results are those of lock step). Frames a model emits on a tap's
// output go to the host at once, and are checked like any other: the
// first of a window is written by the run loop itself (a ping's reply
// waits for no other thread), the rest by the tap's writer goroutine, in
// order, so the kernel's work on them (a TAP write runs the host's
// network stack) overlaps the next window. While hosts stream (the
// governor, boost.go) the writer takes every frame, so the run loop never
// waits on a host's TCP stack. A tap without an input still reads its
// host and counts what it sends as dropped ("no_input").
//
// With Config.KeepWarm (`cosim bridge` and `cosim tap-demo` set it to
// DefaultKeepWarm, 250 us), an idle session does not sleep for long while
// hosts are active: until 2 s after their last frame it steps an empty
// short window every KeepWarm, except while hosts stream. On a busy
// machine a model process that slept 10 ms (a ping's interval) finds its
// code and data evicted from the CPU caches and takes 3-4 times as long
// for its next window. Empty windows only move simulated time on, so they
// change no result and the replay of the recording stays byte-identical.
//
// # Segmentation offload
//
// A tap with offload = true (and the hosts of `cosim tap-demo`) opens its
// TAP with harness/tap's Config.Offload: the host's kernel hands over TCP
// super-packets of up to 64 KB, which the TAP cuts into the MSS-sized
// frames a NIC with TSO would send, and the writer hands every frame
// waiting to the TAP at once, which joins a flow's consecutive segments
// into one super-packet for the receiving host, as GRO does. The model,
// the golden model, the pcapng files and the recording see the wire
// frames, exactly as without offload; the hosts' kernels do their
// per-packet work a few dozen frames at a time.
//
// # What happens to a host's frame
//
//   - Shorter than 14 bytes (no Ethernet header): dropped, "runt".
//   - Longer than the TAP's MTU plus header and one VLAN tag: dropped,
//     "oversize". (The switch has its own MTU check, which the golden
//     model predicts; this one is the TAP's.)
//   - 14 to 59 bytes (an ARP request is 42): padded with zeros to 60, as a
//     real MAC pads a short frame before the wire, and counted "padded".
//     The model, the golden model, the pcapng files and the recording all
//     see the padded frame; the switch would drop the bare one as a runt.
//   - An EtherType other than IPv4, ARP, IPv6, MAC control and LLDP
//     (looking through VLAN tags): counted "unknown_ethertype" and passed
//     on, since the switch forwards any EtherType.
//   - The queue (the tap's queue, default 1024 frames) is full because the
//     host sends faster than the simulation runs: dropped, "queue_full".
//
// Drops are counted per tap and reason in summary.json ("taps", and
// "drops" as tap_<reason>) and on the live status line; nothing is lost
// without a count. Frames to a host that its TAP refuses count as
// to_host_oversize or to_host_error. A TAP whose reads fail for good (the
// device was deleted) counts read_error and ends the session: it drains
// and fails with the tap's name (engine.Live.Err).
//
// # Record and replay
//
// Every frame that enters the simulation from a tap is written, with its
// cycle, to RecordingFile in the output directory: pcapng, one interface
// per tap named after it, the cycle as the packet comment "cycle=N" (and
// as the timestamp, as in every pcapng of a run). The section comment
// holds "cosim recording 1", "seed=N", "scenario=NAME", an empty line and
// the scenario's TOML. [LoadRecording] reads it back and [Recording.Ends]
// turns it into taps for engine.Config: `cosim run --replay` re-runs the
// session without any TAP, and since the models get the same frames at
// the same cycles, every link's pcapng is byte-identical to the live one.
// So a long session may leave the link captures out (Config.NoLinkPcaps,
// `--no-pcap`) and write only the recording.
//
// # Safety
//
// The session attaches only to TAP devices the scenario names, and creates
// one only when the tap says create = true; harness/tap refuses anything
// that is not a TAP. A TAP the session created goes away when it ends,
// unless persist = true. Without CAP_NET_ADMIN, creating fails with a
// message saying so; a persistent TAP owned by a user (owner = UID) can
// later be opened by that user without root.
package bridge
