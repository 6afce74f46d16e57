"""Requests to a RoCEv2 responder built with scapy, and the responses the
RC rules demand, checked with scapy: an oracle for the NIC RTL written
without the Go golden model.

  nic_scapy.py build SPEC.json OUT.pcap   write the request frames
  nic_scapy.py check SPEC.json IN.pcap    check the responder's frames

SPEC: {"nic_mac", "nic_ip", "peer_mac", "peer_ip", "udp_sport", "pmtu",
"requests": [{"name", "op", "dqpn", "sqpn", "psn", "epsn", "ackreq", "va",
"rkey", "len", "imm", "payload" (hex), "memory" (hex: what a READ must
return), "expect"}]}. "expect" names the rule the responder must follow:
  ack        a positive ACK for the request's PSN (IBA 9.7.5.1.1)
  read       one READ RESPONSE ONLY carrying "memory" (IBA 9.7.5.1.3)
  nak_seq    a NAK PSN sequence error (syndrome 0x60) for the expected
             PSN "epsn" (IBA 9.7.5.2.1; rxe_resp.c check_psn)
  nak_access a NAK remote access error (syndrome 0x62) for the request's
             PSN (IBA 9.7.5.2.4; rxe_resp.c check_rkey)
Responses are matched to the requests in order, one each. check prints
"ok NAME: ..." or "FAIL NAME: ..." per request, then "responses N".
Run with /usr/bin/python3 (Debian's python3-scapy).
"""
import json
import struct
import sys

from scapy.compat import raw
from scapy.contrib.roce import AETH, BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Padding, Raw
from scapy.utils import rdpcap, wrpcap

# RC opcodes (IBA table 38; rxe_opcode.c).
OP = {"SEND_ONLY": 0x04, "SEND_ONLY_WITH_IMMEDIATE": 0x05, "RDMA_WRITE_ONLY": 0x0A,
      "RDMA_READ_REQUEST": 0x0C, "RDMA_READ_RESPONSE_ONLY": 0x10, "ACKNOWLEDGE": 0x11}
NAME = {v: k for k, v in OP.items()}


def request(spec, r):
    """The frame of request r: Ether / IPv4 / UDP 4791 / BTH / ext / payload."""
    op = OP[r["op"]]
    ext = b""
    if op in (OP["RDMA_WRITE_ONLY"], OP["RDMA_READ_REQUEST"]):
        ext += struct.pack(">QII", r["va"], r["rkey"], r["len"])  # RETH
    if op == OP["SEND_ONLY_WITH_IMMEDIATE"]:
        ext += struct.pack(">I", r["imm"])  # ImmDt
    payload = bytes.fromhex(r.get("payload", ""))
    pad = -len(payload) % 4
    bth = BTH(opcode=op, padcount=pad, dqpn=r["dqpn"], ackreq=r["ackreq"], psn=r["psn"])
    return (Ether(dst=spec["nic_mac"], src=spec["peer_mac"]) /
            IP(src=spec["peer_ip"], dst=spec["nic_ip"], tos=26 << 2 | 2, ttl=64, flags="DF", id=0) /
            UDP(sport=spec["udp_sport"], dport=4791, chksum=0) /
            bth / Raw(ext + payload + b"\0" * pad))


def icrc_ok(pkt):
    """Recompute the ICRC with scapy and compare it with the frame's."""
    copy = Ether(raw(pkt))
    if Padding in copy:
        del copy[Padding]
    got = raw(copy)[-4:]
    copy[BTH].icrc = None
    return raw(copy)[-4:] == got


def ip_checksum_ok(pkt):
    copy = Ether(raw(pkt))
    want = copy[IP].chksum
    del copy[IP].chksum
    return Ether(raw(copy))[IP].chksum == want


def check_one(spec, r, pkt):
    """Problems of response pkt to request r, or []."""
    bad = []
    if IP not in pkt or UDP not in pkt or BTH not in pkt:
        return ["not a RoCEv2 frame: " + pkt.summary()]
    if Padding in pkt:
        del pkt[Padding]
    b, ip, udp = pkt[BTH], pkt[IP], pkt[UDP]
    for what, got, want in (("dst MAC", pkt[Ether].dst, spec["peer_mac"]), ("src MAC", pkt[Ether].src, spec["nic_mac"]),
                            ("dst IP", ip.dst, spec["peer_ip"]), ("src IP", ip.src, spec["nic_ip"]),
                            ("UDP dport", udp.dport, 4791), ("DestQP", b.dqpn, r["sqpn"]),
                            ("P_Key", b.pkey, 0xFFFF), ("TVer", b.version, 0)):
        if got != want:
            bad.append("%s is %s, want %s" % (what, got, want))
    if not ip_checksum_ok(pkt):
        bad.append("IPv4 header checksum is wrong")
    if not icrc_ok(pkt):
        bad.append("ICRC is wrong")
    e = r["expect"]
    want_op = OP["RDMA_READ_RESPONSE_ONLY"] if e == "read" else OP["ACKNOWLEDGE"]
    if b.opcode != want_op:
        return bad + ["opcode %s (0x%02x), want %s" % (NAME.get(b.opcode, "?"), b.opcode, NAME[want_op])]
    want_psn = r["epsn"] if e == "nak_seq" else r["psn"]
    if b.psn != want_psn:
        bad.append("PSN 0x%06x, want 0x%06x" % (b.psn, want_psn))
    aeth = AETH(raw(b.payload)[:4])
    kind, value = aeth.syndrome >> 5, aeth.syndrome & 0x1F
    if e in ("ack", "read") and kind != 0:
        bad.append("AETH syndrome 0x%02x is not an ACK" % aeth.syndrome)
    if e == "nak_seq" and (kind, value) != (3, 0):
        bad.append("AETH syndrome 0x%02x, want 0x60 (NAK PSN sequence error)" % aeth.syndrome)
    if e == "nak_access" and (kind, value) != (3, 2):
        bad.append("AETH syndrome 0x%02x, want 0x62 (NAK remote access error)" % aeth.syndrome)
    if e == "read":
        data = raw(b.payload)[4:]
        data = data[:len(data) - b.padcount] if b.padcount else data
        if data != bytes.fromhex(r["memory"]):
            bad.append("READ payload (%d bytes) is not the memory read (%d bytes)" % (len(data), len(r["memory"]) // 2))
    return bad


def main():
    mode, spec_path, pcap = sys.argv[1:4]
    with open(spec_path) as f:
        spec = json.load(f)
    if mode == "build":
        wrpcap(pcap, [request(spec, r) for r in spec["requests"]])
        return
    got = list(rdpcap(pcap))
    for i, r in enumerate(spec["requests"]):
        if i >= len(got):
            print("FAIL %s: no response" % r["name"])
            continue
        bad = check_one(spec, r, got[i])
        if bad:
            print("FAIL %s: %s" % (r["name"], "; ".join(bad)))
        else:
            print("ok %s: %s psn 0x%06x" % (r["name"], NAME[got[i][BTH].opcode], got[i][BTH].psn))
    print("responses %d" % len(got))


if __name__ == "__main__":
    main()
