// Package roce holds the golden wire codecs of RoCEv2 (InfiniBand transport
// over UDP port 4791): the Base Transport Header, its extension headers, the
// CNP body and the invariant CRC, as gopacket layers.
//
// Importing the package registers UDP port 4791, so
//
//	gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
//
// decodes a whole RoCEv2 frame over IPv4 or IPv6, tagged or not, into
// Ethernet, [Dot1Q], IPv4|IPv6, UDP, BTH, the extension headers its opcode
// implies (RETH, AETH, ...), the payload and the ICRC trailer.
//
// The extension headers carry no type field on the wire: which ones follow
// the BTH is implied by its opcode (IBA table 38; rxe_opcode.c). So the BTH
// layer decodes them itself and keeps them in its fields; with a
// gopacket.DecodingLayerParser the chain is simply Ethernet, Dot1Q, IPv4 or
// IPv6, UDP, BTH, gopacket.Payload, and decoding allocates nothing.
//
// Serialising follows the same shape: list Ethernet, IP, UDP, BTH and the
// payload; the BTH writes its extension headers, the pad and the ICRC
// trailer. The ICRC covers the IP and UDP headers, which gopacket writes only
// after the BTH, so use SerializeLayers from this package (or call FixICRC on
// the finished frame) to get it computed.
package roce
