// Package pcapio reads and writes packet captures for the RoCEv2/Ethernet
// co-simulation harness.
//
// # Reading
//
// [Open] accepts classic pcap files (either byte order, microsecond or
// nanosecond timestamps) and pcapng files; the format is chosen by the
// file's magic number, never by its name. [Reader.Next] returns one
// [Packet] per call and io.EOF at the clean end of the file.
//
// Only Ethernet (link type 1) captures are accepted, because that is what
// the harness codecs decode. Every pcapng interface declared before the
// first packet is checked by Open; interfaces declared later are checked on
// the first packet that uses them.
//
// Any error other than io.EOF returned by [Open] or [Reader.Next] means the
// input cannot be read. Problems with the file contents are reported as a
// *[FormatError] (match it with errors.As); problems opening or reading the
// file itself (missing file, permission denied, I/O error) are the
// *fs.PathError from package os, which already names the path. After an
// error, Next keeps returning the same error.
//
// Compressed (gzip) captures are not accepted; decompress them first.
//
// # Writing
//
// [LinkWriter] writes pcapng with link type Ethernet, one pcapng interface
// per simulated link. Each frame carries its simulation cycle twice:
//
//   - as the timestamp, cycle × clock period (default 6.4 ns, i.e.
//     156.25 MHz) counted from the Unix epoch and rounded down to a whole
//     nanosecond, so ordinary tools show a sensible time line;
//   - exactly, as the packet comment "cycle=N", which [Reader] parses back
//     into [Packet.Cycle].
//
// Output is deterministic: no wall clock, host name, OS or architecture
// string is written, so the same frames and cycles give byte-identical
// files. The section header names the application ("cosim" by default).
//
// [WritePcap] and [WritePcapTo] write a classic pcap (microsecond
// timestamps, Ethernet) for tests and tools.
package pcapio
