"""Print RoCEv2 frames built by scapy, one JSON object a line, with the
field values used, for every opcode over IPv4, IPv6 and 802.1Q + IPv4/IPv6,
with payload lengths giving every pad count. Run with /usr/bin/python3
(Debian's python3-scapy). The Go test oracle_test.go decodes each frame
with the golden codec and compares."""
import json
import random
import struct

from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw
from scapy.contrib.roce import AETH, BTH, CNPPadding

from roce_ref import OPCODES, icrc_ipv6, pack_ext, EXT

rng = random.Random(4791)  # fixed seed: the output is the same every run


def bits(n):
    return rng.getrandbits(n)


def ext_fields(name):
    if name == "aeth":
        return {"syndrome": bits(8), "msn": bits(24)}
    if name == "cnp":
        return {"reserved": rng.randbytes(16).hex()}
    _, names, widths = EXT[name]
    return {k: bits(w) for k, w in zip(names, widths)}


def ext_layer(name, f):
    if name == "aeth":
        return AETH(syndrome=f["syndrome"], msn=f["msn"])
    if name == "cnp":
        r = bytes.fromhex(f["reserved"])
        return CNPPadding(reserved1=int.from_bytes(r[:8], "big"),
                          reserved2=int.from_bytes(r[8:], "big"))
    return Raw(pack_ext(name, f))


def vector(op, plen, encap):
    name, headers, _ = OPCODES[op]
    pad = -plen & 3
    b = {"opcode": op, "se": bits(1), "m": bits(1), "padcnt": pad,
         "tver": bits(4), "pkey": bits(16), "fecn": bits(1), "becn": bits(1),
         "resv6": bits(6), "destqp": bits(24), "ackreq": bits(1),
         "resv7": bits(7), "psn": bits(24)}
    v = {"name": "%s/%s/len%d" % (name, encap, plen), "bth": b}
    pkt = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    if encap.startswith("vlan"):
        v["vlan"] = {"pcp": bits(3), "vid": rng.randrange(1, 4095)}
        pkt /= Dot1Q(prio=v["vlan"]["pcp"], vlan=v["vlan"]["vid"])
    if encap.endswith("4"):
        pkt /= IP(src="10.%d.%d.%d" % (bits(8), bits(8), bits(8)),
                  dst="10.%d.%d.%d" % (bits(8), bits(8), bits(8)),
                  tos=bits(8), ttl=bits(8), id=bits(16), flags="DF")
    else:
        pkt /= IPv6(src="fd00::%x" % bits(16), dst="fd00::%x" % bits(16),
                    tc=bits(8), fl=bits(20), hlim=bits(8))
    pkt /= UDP(sport=0xC000 | bits(14), dport=4791)
    pkt /= BTH(opcode=op, solicited=b["se"], migreq=b["m"], padcount=pad,
               version=b["tver"], pkey=b["pkey"], fecn=b["fecn"],
               becn=b["becn"], resv6=b["resv6"], dqpn=b["destqp"],
               ackreq=b["ackreq"], resv7=b["resv7"], psn=b["psn"],
               icrc=None if encap.endswith("4") else 0)
    for h in headers:
        v[h] = ext_fields(h)
        pkt /= ext_layer(h, v[h])
    payload = rng.randbytes(plen)
    if plen + pad:
        pkt /= Raw(payload + bytes(pad))
    if IPv6 in pkt:
        # scapy computes no IPv6 ICRC: put ours in and rebuild, so that the
        # UDP checksum scapy computes covers the final ICRC bytes.
        wire = icrc_ipv6(raw(pkt[IPv6])[:-4])
        pkt[BTH].icrc = struct.unpack("!I", wire)[0]
    frame = raw(pkt)
    v["icrc"] = frame[-4:].hex()  # the ICRC scapy (IPv4) or roce_ref (IPv6) wrote
    frame += bytes(max(0, 60 - len(frame)))  # Ethernet minimum, as a MAC pads
    v.update(payload=payload.hex(), pad="00" * pad, frame=frame.hex())
    return v


for op, (name, headers, has_payload) in sorted(OPCODES.items()):
    # Payload lengths 4k, 4k+3, 4k+2, 4k+1 give pad counts 0, 1, 2, 3.
    lens = [4 * rng.randrange(0, 8) + r for r in (0, 3, 2, 1)] if has_payload else [0]
    for plen in lens:
        for encap in ("ipv4", "ipv6", "vlan4", "vlan6"):
            print(json.dumps(vector(op, plen, encap)))
