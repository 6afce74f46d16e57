"""Re-parse the RoCEv2 frames of a pcap with scapy and print, one JSON object
a line, the fields found and the ICRC scapy computes itself (IPv4:
scapy.contrib.roce BTH.compute_icrc; IPv6: roce_ref.icrc_ipv6). Run with
/usr/bin/python3 (Debian's python3-scapy): scapy_check.py FILE.pcap"""
import json
import struct
import sys

from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q
from scapy.packet import Padding
from scapy.utils import rdpcap
from scapy.contrib.roce import AETH, BTH, CNPPadding

from roce_ref import OPCODES, SIZE, icrc_ipv6, unpack_ext


def parse_ext(name, data):
    if name == "aeth":
        a = AETH(data)
        return {"syndrome": a.syndrome, "msn": a.msn}
    if name == "cnp":
        c = CNPPadding(data)
        return {"reserved": struct.pack(">QQ", c.reserved1, c.reserved2).hex()}
    return unpack_ext(name, data)


def check(pkt):
    if Padding in pkt:
        del pkt[Padding]  # Ethernet padding after the IP packet
    b, udp = pkt[BTH], pkt[UDP]
    l3 = pkt[IP] if IP in pkt else pkt[IPv6]
    v = {"bth": {"opcode": b.opcode, "se": b.solicited, "m": b.migreq,
                 "padcnt": b.padcount, "tver": b.version, "pkey": b.pkey,
                 "fecn": b.fecn, "becn": b.becn, "resv6": b.resv6,
                 "destqp": b.dqpn, "ackreq": b.ackreq, "resv7": b.resv7,
                 "psn": b.psn},
         "icrc": struct.pack("!I", b.icrc).hex(),  # as on the wire
         "udp_len": udp.len,
         "ip_len": l3.len if IP in pkt else l3.plen}
    if Dot1Q in pkt:
        v["vlan"] = {"pcp": pkt[Dot1Q].prio, "vid": pkt[Dot1Q].vlan}
    # Bytes between BTH and ICRC, cut by our own table of the opcode.
    body = raw(udp)[8 + 12:udp.len - 4]
    _, headers, _ = OPCODES[b.opcode]
    for h in headers:
        v[h] = parse_ext(h, body[:SIZE[h]])
        body = body[SIZE[h]:]
    pad = b.padcount if b.padcount <= len(body) else len(body)
    v["payload"] = body[:len(body) - pad].hex()
    v["pad"] = body[len(body) - pad:].hex()
    # The ICRC computed here, and whether the UDP checksum is right.
    q = l3.copy()
    if IP in pkt:
        q[BTH].icrc = None  # BTH.post_build computes it (IPv4 only)
        v["icrc_calc"] = raw(q)[-4:].hex()
    else:
        v["icrc_calc"] = icrc_ipv6(raw(l3)[:-4]).hex()
    del q[UDP].chksum
    q[BTH].icrc = b.icrc
    v["udp_chksum_ok"] = udp.chksum == l3.__class__(raw(q))[UDP].chksum or (
        udp.chksum == 0 and IP in pkt)
    return v


for p in rdpcap(sys.argv[1]):
    print(json.dumps(check(p)))
