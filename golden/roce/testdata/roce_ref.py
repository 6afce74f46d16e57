"""Reference tables for the oracle scripts, written independently of the Go
codec under test.

Which extension headers follow the BTH of each opcode, and in which order,
comes from the InfiniBand Architecture spec table 38 as restated in
Linux rxe drivers/infiniband/sw/rxe/
rxe_opcode.c (rxe_opcode[]); header layouts from rxe_hdr.h. All fields are
big-endian.
"""
import struct
import zlib

# Extension header layouts: struct format, field names and their widths in
# bits (rxe_hdr.h).
# AETH (scapy.contrib.roce.AETH) and the CNP body (CNPPadding) are built
# and parsed with scapy's own classes instead.
EXT = {
    "deth": (">IB3s", ("qkey", "reserved", "srcqp"), (32, 8, 24)),
    "reth": (">QII", ("va", "rkey", "dmalen"), (64, 32, 32)),
    "atomiceth": (">QIQQ", ("va", "rkey", "swapadd", "compare"),
                  (64, 32, 64, 64)),
    "atomicacketh": (">Q", ("orig",), (64,)),
    "immdt": (">I", ("imm",), (32,)),
    "ieth": (">I", ("rkey",), (32,)),
}
SIZE = {"deth": 8, "reth": 16, "atomiceth": 28, "aeth": 4,
        "atomicacketh": 8, "immdt": 4, "ieth": 4, "cnp": 16}

# RC operations: name, extension headers in wire order, carries payload.
_OPS = {
    0x00: ("SEND_FIRST", (), True),
    0x01: ("SEND_MIDDLE", (), True),
    0x02: ("SEND_LAST", (), True),
    0x03: ("SEND_LAST_WITH_IMMEDIATE", ("immdt",), True),
    0x04: ("SEND_ONLY", (), True),
    0x05: ("SEND_ONLY_WITH_IMMEDIATE", ("immdt",), True),
    0x06: ("RDMA_WRITE_FIRST", ("reth",), True),
    0x07: ("RDMA_WRITE_MIDDLE", (), True),
    0x08: ("RDMA_WRITE_LAST", (), True),
    0x09: ("RDMA_WRITE_LAST_WITH_IMMEDIATE", ("immdt",), True),
    0x0A: ("RDMA_WRITE_ONLY", ("reth",), True),
    0x0B: ("RDMA_WRITE_ONLY_WITH_IMMEDIATE", ("reth", "immdt"), True),
    0x0C: ("RDMA_READ_REQUEST", ("reth",), False),
    0x0D: ("RDMA_READ_RESPONSE_FIRST", ("aeth",), True),
    0x0E: ("RDMA_READ_RESPONSE_MIDDLE", (), True),
    0x0F: ("RDMA_READ_RESPONSE_LAST", ("aeth",), True),
    0x10: ("RDMA_READ_RESPONSE_ONLY", ("aeth",), True),
    0x11: ("ACKNOWLEDGE", ("aeth",), False),
    0x12: ("ATOMIC_ACKNOWLEDGE", ("aeth", "atomicacketh"), False),
    0x13: ("COMPARE_SWAP", ("atomiceth",), False),
    0x14: ("FETCH_ADD", ("atomiceth",), False),
    0x16: ("SEND_LAST_WITH_INVALIDATE", ("ieth",), True),
    0x17: ("SEND_ONLY_WITH_INVALIDATE", ("ieth",), True),
}

# OPCODES maps every opcode to (name, extension headers, carries payload).
OPCODES = {op: ("RC_" + n, h, p) for op, (n, h, p) in _OPS.items()}
# UC has the SEND and RDMA WRITE operations only (0x00-0x0B).
OPCODES.update({0x20 | op: ("UC_" + n, h, p)
                for op, (n, h, p) in _OPS.items() if op <= 0x0B})
# UD has SEND ONLY [with immediate]; the DETH comes first.
for op in (0x04, 0x05):
    n, h, p = _OPS[op]
    OPCODES[0x60 | op] = ("UD_" + n, ("deth",) + h, p)
# RoCEv2 CNP (annex A17.9.3): 16 reserved bytes.
OPCODES[0x81] = ("CNP", ("cnp",), False)


def pack_ext(name, fields):
    fmt, names, _ = EXT[name]
    vals = [fields[k] for k in names]
    if name == "deth":
        vals[2] = vals[2].to_bytes(3, "big")
    return struct.pack(fmt, *vals)


def unpack_ext(name, data):
    fmt, names, _ = EXT[name]
    vals = list(struct.unpack(fmt, data))
    if name == "deth":
        vals[2] = int.from_bytes(vals[2], "big")
    return dict(zip(names, vals))


def icrc_ipv6(ip6):
    """ICRC wire bytes of an IPv6 RoCEv2 packet given without its ICRC.

    An independent re-implementation in Python (a different language from
    the Go code under test), needed because scapy 2.5's BTH.compute_icrc
    handles IPv4 only. It follows IBA annex A17.3.3 and rxe_icrc.c:
    CRC-32 (zlib) over 8 bytes of 0xFF, then the IPv6 header with traffic
    class, flow label and hop limit set to ones, the UDP header with its
    checksum set to ones, the BTH with byte 4 set to ones, then the rest;
    the result goes on the wire little-endian.
    """
    b = bytearray(ip6)
    b[0] |= 0x0F                 # traffic class, high nibble
    b[1:4] = b"\xff\xff\xff"     # traffic class low nibble, flow label
    b[7] = 0xFF                  # hop limit
    b[46:48] = b"\xff\xff"       # UDP checksum (UDP header at offset 40)
    b[52] = 0xFF                 # BTH byte 4: FECN, BECN, reserved
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)))
