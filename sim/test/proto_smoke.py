#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""proto_smoke.py: socket-protocol smoke test of a loopback model program.

Starts the model (a top whose output port p carries exactly input port p's
frames, such as axis_fifo_top) with --socket or --listen, speaks the
protocol of sim/proto.h with nothing but socket and struct, and checks:
frames across many windows come out equal, in order, with sensible cycle
stamps (exact ones without backpressure); backpressure is deterministic per
seed; host memory reads back what was written; bad input gets the right
ERROR code and a non-zero exit, a --listen port outside 0..65535 exit 2;
EOF from the harness ends the model with a message; TCP and tracing work.
--bench instead measures the socket path: back-to-back frames through a
Python harness, one round trip per window.

usage: python3 sim/test/proto_smoke.py MODEL_BINARY
           [--misuse MISUSE_BINARY] [--bad-param BAD_PARAM_BINARY]
       python3 sim/test/proto_smoke.py MODEL_BINARY --bench
--misuse runs the deliberately broken top (sim/test/axis_misuse_top.sv) and
--bad-param a top built with an illegal parameter; both must end in ERROR
kErrModel with a clear text and a non-zero exit.
"""

import os
import random
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

PROTO_VERSION = 2
MAX_BODY = 1 << 20

# Message types (proto.h MsgType).
HELLO, HELLO_ACK, FRAME, ACCEPT, RUN, DONE = 1, 2, 3, 4, 5, 6
CSR_WRITE, CSR_READ, CSR_DATA, MEM_WRITE, MEM_READ, MEM_DATA = 7, 8, 9, 10, 11, 12
ERROR, GOODBYE = 13, 14
ACK_TRACE, FRAME_BAD, DONE_BUSY = 1, 1, 1
ERR_PROTOCOL, ERR_VERSION, ERR_PORT, ERR_MODEL = 1, 2, 3, 4

HDR = struct.Struct("<HHIQ")          # type, flags, len, cycle
HELLO_B = struct.Struct("<IIHHI")     # version, data_width, in_ports, out_ports, text_len
ACK_B = struct.Struct("<IIQHHIQQ")    # version, text_len, seed, src_gap_pct, sink_stall_pct, reserved, trace_from, trace_to
FRAME_B = struct.Struct("<HHIQ")      # port, reserved, seq, last_cycle
ACCEPT_B = struct.Struct("<HHIQ")     # port, reserved, seq, last_cycle
DONE_B = struct.Struct("<IIQQ")       # frames_out, frames_queued, src_stalls, sink_stalls
CSR_B = struct.Struct("<II")          # addr, data
MEM_B = struct.Struct("<QII")         # addr, length, reserved
ERR_B = struct.Struct("<II")          # code, text_len
BYE_B = struct.Struct("<II")          # reason, reserved
assert [s.size for s in (HDR, HELLO_B, ACK_B, FRAME_B, ACCEPT_B, DONE_B, CSR_B, MEM_B, ERR_B, BYE_B)] == \
    [16, 16, 40, 16, 16, 24, 8, 16, 8, 8], "layouts must match proto.h"

TIMEOUT = 20.0    # seconds any single wait may take
# LATENCY of each loopback top, from its header comment.
TOP_LATENCY = {"axis_fifo_top": 3, "axis_loop_top": 1}


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def msg(mtype, cycle=0, flags=0, body=b""):
    return HDR.pack(mtype, flags, len(body), cycle) + body


class Model:
    """A model process and the harness end of its connection."""

    def __init__(self, binary, tmp, tcp=False, args=()):
        self.path = os.path.join(tmp, "model.sock")
        where = ["--listen", "127.0.0.1:0"] if tcp else ["--socket", self.path]
        self.proc = subprocess.Popen([binary, *where, "--accept-timeout", "20", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self._stdout_line()
        check(line.startswith("LISTEN "), "first stdout line %r, want LISTEN ..." % line)
        kind, addr = line.split()[1:3]
        if kind == "unix":
            check(addr == self.path, "LISTEN %s, want %s" % (addr, self.path))
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(TIMEOUT)
            self.sock.connect(addr)
        else:
            host, port = addr.rsplit(":", 1)
            self.sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        self.buf, self.pos = bytearray(), 0

    def _stdout_line(self):
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        check(ready, "model printed nothing within %d s" % TIMEOUT)
        return self.proc.stdout.readline().decode().strip()

    def send(self, *msgs):
        data = b"".join(msgs)
        if not data:
            return
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass   # the model closed first; its ERROR is still there to read

    def _read(self, n):
        while len(self.buf) - self.pos < n:
            if self.pos > 0:
                del self.buf[:self.pos]
                self.pos = 0
            chunk = self.sock.recv(max(1 << 18, n - len(self.buf)))
            if not chunk:
                raise Fail("model closed the connection; stderr: " + self.stderr())
            self.buf += chunk
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def recv(self):
        mtype, flags, length, cycle = HDR.unpack(self._read(HDR.size))
        return mtype, flags, cycle, self._read(length)

    def expect_eof(self):
        self.sock.settimeout(TIMEOUT)
        check(self.sock.recv(1) == b"", "connection still open")

    def wait(self):
        try:
            code = self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Fail("model did not exit")
        return code

    def stderr(self):
        if self.proc.poll() is None:
            return "(running)"
        return self.proc.stderr.read().decode(errors="replace").strip()

    def close(self):
        try:
            self.sock.close()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.proc.stderr.close()

    # ---- conversation ----

    def handshake(self, seed=1, gap=0, stall=0, trace=None, version=PROTO_VERSION):
        mtype, flags, cycle, body = self.recv()
        check(mtype == HELLO, "first message type %d, want HELLO" % mtype)
        ver, dw, nin, nout, tlen = HELLO_B.unpack(body[:HELLO_B.size])
        check(ver == PROTO_VERSION, "HELLO version %d" % ver)
        check(tlen == len(body) - HELLO_B.size, "HELLO text_len")
        kv = dict(l.split("=", 1) for l in body[HELLO_B.size:].decode().splitlines())
        for key in ("name", "top", "param.DATA_WIDTH", "reset_cycles"):
            check(key in kv, "HELLO text lacks %s: %r" % (key, kv))
        check(int(kv["param.DATA_WIDTH"]) == dw, "HELLO data_width %d vs param %s" % (dw, kv["param.DATA_WIDTH"]))
        text = (trace or "").encode()
        self.send(msg(HELLO_ACK, flags=ACK_TRACE if trace else 0,
                      body=ACK_B.pack(version, len(text), seed, gap, stall, 0, 0, 2**64 - 1) + text))
        self.dw, self.nin, self.nout, self.info = dw, nin, nout, kv
        return kv

    def run(self, cycle):
        """RUN to cycle; returns (accepts, frames, csr, mem, done) of the reply."""
        self.send(msg(RUN, cycle))
        accepts, frames, csrs, mems = [], [], [], []
        while True:
            mtype, flags, mcycle, body = self.recv()
            if mtype == ACCEPT:
                port, _, seq, last = ACCEPT_B.unpack(body)
                accepts.append((port, seq, mcycle, last))
            elif mtype == FRAME:
                port, _, seq, _last = FRAME_B.unpack(body[:FRAME_B.size])
                frames.append((port, seq, mcycle, bool(flags & FRAME_BAD), body[FRAME_B.size:]))
            elif mtype == CSR_DATA:
                csrs.append((mcycle,) + CSR_B.unpack(body))
            elif mtype == MEM_DATA:
                addr, length, _ = MEM_B.unpack(body[:MEM_B.size])
                mems.append((mcycle, addr, body[MEM_B.size:]))
                check(length == len(body) - MEM_B.size, "MEM_DATA length")
            elif mtype == DONE:
                check(mcycle == cycle, "DONE at cycle %d, want %d" % (mcycle, cycle))
                out, queued, src, sink = DONE_B.unpack(body)
                check(out == len(frames), "DONE frames_out %d, reply had %d" % (out, len(frames)))
                return accepts, frames, csrs, mems, dict(busy=bool(flags & DONE_BUSY), queued=queued,
                                                         src_stalls=src, sink_stalls=sink)
            elif mtype == ERROR:
                code, tlen = ERR_B.unpack(body[:ERR_B.size])
                raise Fail("model ERROR %d: %s" % (code, body[ERR_B.size:].decode()))
            else:
                raise Fail("unexpected message type %d in a RUN reply" % mtype)

    def goodbye(self):
        self.send(msg(GOODBYE, body=BYE_B.pack(0, 0)))
        mtype, _, _, _ = self.recv()
        check(mtype == GOODBYE, "answer to GOODBYE is type %d" % mtype)
        code = self.wait()
        check(code == 0, "exit status %d after GOODBYE; stderr: %s" % (code, self.stderr()))

    def expect_error(self, code):
        """Reads to ERROR (a failing window's partial results may come
        first), checks its code and the non-zero exit."""
        while True:
            mtype, _, _, body = self.recv()
            if mtype == ERROR:
                break
            check(mtype in (ACCEPT, FRAME, CSR_DATA, MEM_DATA), "got type %d, want ERROR" % mtype)
        got, tlen = ERR_B.unpack(body[:ERR_B.size])
        text = body[ERR_B.size:ERR_B.size + tlen].decode()
        check(got == code, "ERROR code %d (%s), want %d" % (got, text, code))
        status = self.wait()
        check(status != 0, "exit status 0 after ERROR")
        return text


def make_frames(rng, n, dw_bytes, ports):
    """n frames per port of awkward sizes (1 byte, around the beat size,
    big), some bad, with stamps that bunch up and spread out."""
    sizes = [1, dw_bytes - 1, dw_bytes, dw_bytes + 1, 2 * dw_bytes, 60, 64, 1500, 4000, 9000]
    per_port = []
    for port in range(ports):
        frames, stamp = [], rng.randint(0, 20)
        for seq in range(n):
            size = sizes[seq] if seq < len(sizes) else rng.choice([rng.randint(1, 200), rng.randint(1, 2000)])
            stamp += rng.choice([0, 0, 0, 1, 5, rng.randint(0, 300)])
            frames.append(dict(port=port, seq=seq, stamp=stamp, bad=rng.random() < 0.1,
                               data=rng.randbytes(max(1, size))))
        per_port.append(frames)
    return per_port


def stream(binary, tmp, seed, gap, stall, nframes=120, window_seed=0):
    """Sends frames on every port over windows of varying length (drawn
    from window_seed); returns the stamps seen."""
    m = Model(binary, tmp)
    try:
        m.handshake(seed=seed, gap=gap, stall=stall)
        check(m.nin >= 1 and m.nin == m.nout, "want a loopback top, got %d in %d out" % (m.nin, m.nout))
        latency = TOP_LATENCY[m.info["top"]]
        rng = random.Random(seed)
        wrng = random.Random(window_seed)
        beat = m.dw // 8
        per_port = make_frames(rng, nframes, beat, m.nin)
        pending = sorted((f for fs in per_port for f in fs), key=lambda f: f["stamp"])
        total = len(pending)
        now, accepts, outs, nout = 0, [[] for _ in per_port], [[] for _ in per_port], 0
        busy, rounds = True, 0
        while pending or busy or nout < total:
            end = now + wrng.choice([1, 7, 64, 100, 333, 1000])
            batch = []
            while pending and pending[0]["stamp"] < end + 50:   # some arrive early
                f = pending.pop(0)
                batch.append(msg(FRAME, f["stamp"], FRAME_BAD if f["bad"] else 0,
                                 FRAME_B.pack(f["port"], 0, f["seq"], 0) + f["data"]))
            m.send(*batch)
            acc, out, _, _, done = m.run(end)
            for a in acc:
                check(a[3] < end and a[2] <= a[3], "ACCEPT %r outside the window ending %d" % (a, end))
                accepts[a[0]].append(a)
            for o in out:
                check(o[2] < end, "FRAME out stamped %d, window ended %d" % (o[2], end))
                check(o[0] < m.nout, "FRAME out on port %d" % o[0])
                outs[o[0]].append(o)
            nout += len(out)
            busy = done["busy"]
            now, rounds = end, rounds + 1
            check(rounds < 20000, "no end in sight: %d of %d frames out" % (nout, total))
        check(not busy and done["queued"] == 0, "model still busy after the last frame: %r" % done)

        for port, frames in enumerate(per_port):
            acc, out = accepts[port], outs[port]
            # Every frame accepted once, in order, not before its stamp,
            # taking at least one cycle per beat.
            check([a[1] for a in acc] == list(range(len(frames))), "port %d: ACCEPT seqs out of order" % port)
            prev_last = -1
            for f, (_, seq, first, last) in zip(frames, acc):
                beats = (len(f["data"]) + beat - 1) // beat
                check(first >= f["stamp"] and first > prev_last, "port %d frame %d accepted at %d, stamp %d"
                      % (port, seq, first, f["stamp"]))
                check(last - first >= beats - 1, "port %d frame %d: %d beats in %d cycles"
                      % (port, seq, beats, last - first + 1))
                if gap == 0 and stall == 0:
                    check(last - first == beats - 1, "port %d frame %d: %d beats took %d cycles unhindered"
                          % (port, seq, beats, last - first + 1))
                prev_last = last
            # Every frame out once, equal, in order, no earlier than the
            # latency; exactly at it without backpressure.
            check([o[1] for o in out] == list(range(len(frames))), "port %d: FRAME seqs out of order" % port)
            prev_end = -1
            for f, a, (_, seq, cycle, bad, data) in zip(frames, acc, out):
                check(data == f["data"], "port %d frame %d: %d bytes out differ from %d bytes in"
                      % (port, seq, len(data), len(f["data"])))
                check(bad == f["bad"], "port %d frame %d: bad flag %s, sent %s" % (port, seq, bad, f["bad"]))
                check(cycle >= a[2] + latency, "port %d frame %d out at %d, accepted at %d" % (port, seq, cycle, a[2]))
                check(cycle > prev_end, "port %d frame %d out at %d overlaps the frame before" % (port, seq, cycle))
                prev_end = cycle + (len(data) + beat - 1) // beat - 1
                if gap == 0 and stall == 0:
                    check(cycle == a[2] + latency, "port %d frame %d out at %d, want accept %d + %d"
                          % (port, seq, cycle, a[2], latency))
        if stall:
            check(done["sink_stalls"] > 0, "sink_stall_pct %d but no sink stalls" % stall)
        m.goodbye()
        return ([[(a[2], a[3]) for a in acc] for acc in accepts], [[o[2] for o in out] for out in outs])
    finally:
        m.close()


def memory(binary, tmp):
    m = Model(binary, tmp)
    try:
        m.handshake()
        blocks = [(0x1000 - 10, bytes(range(100))),                    # across a page boundary
                  ((1 << 40) + 5, b"host memory"),
                  (0xFFFF_FFFF_FFFF_F000, bytes([0xA5]) * 4096),      # the last page
                  (0x20_0000, random.Random(3).randbytes(MAX_BODY))]
        m.send(*[msg(MEM_WRITE, body=MEM_B.pack(a, len(d), 0) + d) for a, d in blocks])
        reads = [(a, len(d)) for a, d in blocks] + [(0x7000, 64), (0x1000 - 20, 30)]
        m.send(*[msg(MEM_READ, body=MEM_B.pack(a, n, 0)) for a, n in reads])
        _, _, _, mems, done = m.run(0)   # a zero-cycle window just answers
        check(len(mems) == len(reads), "%d MEM_DATA for %d MEM_READ" % (len(mems), len(reads)))
        want = [d for _, d in blocks] + [bytes(64), bytes(10) + bytes(range(20))]
        for (cycle, addr, data), (a, n), w in zip(mems, reads, want):
            check(cycle == 0 and addr == a, "MEM_DATA for 0x%x at cycle %d, want 0x%x at 0" % (addr, cycle, a))
            check(data == w, "MEM_DATA at 0x%x: %d bytes differ" % (a, n))
        # Memory persists across windows.
        m.run(10)
        m.send(msg(MEM_READ, body=MEM_B.pack(0x1000 - 10, 100, 0)))
        _, _, _, mems, _ = m.run(10)
        check(mems and mems[0][0] == 10 and mems[0][2] == bytes(range(100)), "memory after a window")
        m.goodbye()
    finally:
        m.close()


def errors(binary, tmp):
    """Each bad input gets its ERROR code and a non-zero exit."""
    good = FRAME_B.pack(0, 0, 0, 0) + b"x" * 10
    cases = [
        ("wrong version", dict(version=PROTO_VERSION + 1), [], ERR_VERSION),
        ("port out of range", {}, [msg(FRAME, 0, 0, FRAME_B.pack(7, 0, 0, 0) + b"abc")], ERR_PORT),
        ("unknown type", {}, [msg(99)], ERR_PROTOCOL),
        ("CSR on a model without CSR", {}, [msg(CSR_WRITE, body=CSR_B.pack(0, 1))], ERR_PROTOCOL),
        ("empty frame", {}, [msg(FRAME, 0, 0, FRAME_B.pack(0, 0, 0, 0))], ERR_PROTOCOL),
        ("seq gap", {}, [msg(FRAME, 0, 0, good), msg(FRAME, 0, 0, FRAME_B.pack(0, 0, 2, 0) + b"y")], ERR_PROTOCOL),
        ("stamp in the past", {}, [msg(RUN, 100), msg(FRAME, 50, 0, good)], ERR_PROTOCOL),
        ("RUN backwards", {}, [msg(RUN, 100), msg(RUN, 99)], ERR_PROTOCOL),
        ("RUN with a body", {}, [msg(RUN, 1, body=b"zz")], ERR_PROTOCOL),
        ("short MEM_READ", {}, [msg(MEM_READ, body=b"\0" * 8)], ERR_PROTOCOL),
        ("MEM_READ too big", {}, [msg(MEM_READ, body=MEM_B.pack(0, MAX_BODY + 1, 0))], ERR_PROTOCOL),
        ("body over the limit", {}, [HDR.pack(FRAME, 0, MAX_BODY + 1000, 0)], ERR_PROTOCOL),
        ("HELLO from the harness", {}, [msg(HELLO, body=HELLO_B.pack(1, 64, 1, 1, 0))], ERR_PROTOCOL),
    ]
    for name, ack, msgs, code in cases:
        m = Model(binary, tmp)
        try:
            m.handshake(**ack)
            m.send(*msgs)
            while True:   # skip the replies to RUNs that were fine
                mtype, _, _, body = m.recv()
                if mtype == ERROR:
                    got, tlen = ERR_B.unpack(body[:ERR_B.size])
                    text = body[ERR_B.size:].decode()
                    check(got == code, "%s: ERROR code %d (%s), want %d" % (name, got, text, code))
                    break
                check(mtype in (DONE, ACCEPT, FRAME), "%s: got type %d" % (name, mtype))
            check(m.wait() != 0, "%s: exit status 0" % name)
            print("  %-28s ERROR %d: %s" % (name, code, text))
        finally:
            m.close()

    # The harness goes away: the model must notice, say so and fail.
    for name, data in [("EOF after HELLO_ACK", b""), ("EOF inside a message", HDR.pack(RUN, 0, 0, 5)[:9])]:
        m = Model(binary, tmp)
        try:
            m.handshake()
            m.send(data)
            m.sock.shutdown(socket.SHUT_WR)
            status = m.wait()
            err = m.stderr()
            check(status != 0 and "closed" in err, "%s: status %d, stderr %r" % (name, status, err))
            print("  %-28s exit %d: %s" % (name, status, err.splitlines()[-1]))
        finally:
            m.close()


def bad_listen(binary):
    """A --listen value that is no port 0..65535 is refused before anything
    listens: exit 2 and a message naming the range (99999 once listened on
    99999 mod 65536)."""
    for value in ("99999", "65536", "127.0.0.1:70000", "[::1]:123456789012345678901", "http", "127.0.0.1:", "-1"):
        try:
            p = subprocess.run([binary, "--listen", value, "--accept-timeout", "1"], capture_output=True,
                               text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Fail("--listen %s: still running after %gs" % (value, TIMEOUT))
        check(p.returncode == 2 and "0 to 65535" in p.stderr and "LISTEN" not in p.stdout,
              "--listen %s: exit %d, stdout %r, stderr %r" % (value, p.returncode, p.stdout, p.stderr))
        print("  --listen %-28s exit 2: %s" % (value, p.stderr.strip().splitlines()[-1]))


def tcp_and_trace(binary, tmp):
    trace = os.path.join(tmp, "t.fst")
    m = Model(binary, tmp, tcp=True)
    try:
        m.handshake(trace=trace)
        m.send(msg(FRAME, 3, 0, FRAME_B.pack(0, 0, 0, 0) + b"over tcp" * 20))
        acc, out, _, _, done = m.run(200)
        check(len(acc) == 1 and acc[0][2] == 3, "TCP: accept %r" % acc)
        check(len(out) == 1 and out[0][4] == b"over tcp" * 20, "TCP: frame out %r" % out)
        m.goodbye()
    finally:
        m.close()
    check(os.path.getsize(trace) > 100, "trace file is %d bytes" % os.path.getsize(trace))


def misuse(binary, tmp):
    """The broken top: every misuse ends in ERROR kErrModel naming the rule."""
    cases = [(1, 0, "not contiguous"), (2, 0, "tkeep is zero"), (3, 50, "tvalid dropped"), (4, 0, "$finish"),
             (5, 0, "failed assertion"), (6, 0, "without tlast"), (7, 50, "tdata changed")]
    for mode, stall, phrase in cases:
        m = Model(binary, tmp)
        try:
            m.handshake(seed=mode, stall=stall)
            m.send(msg(FRAME, 2, 0, FRAME_B.pack(0, 0, 0, 0) + bytes([mode]) + bytes(range(1, 200))))
            end = 100
            m.send(msg(RUN, end))
            while True:
                mtype, _, cycle, body = m.recv()
                if mtype == ERROR:
                    break
                check(mtype in (DONE, ACCEPT, FRAME), "mode %d: got type %d" % (mode, mtype))
                check(mtype != FRAME, "mode %d: the broken frame came out" % mode)
                if mtype == DONE:
                    check(end < 1000, "mode %d: no ERROR by cycle %d" % (mode, end))
                    end += 100
                    m.send(msg(RUN, end))
            code, tlen = ERR_B.unpack(body[:ERR_B.size])
            text = body[ERR_B.size:].decode()
            check(code == ERR_MODEL and phrase in text, "mode %d: ERROR %d %r, want %d with %r"
                  % (mode, code, text, ERR_MODEL, phrase))
            status = m.wait()
            check(status != 0, "mode %d: exit status 0" % mode)
            print("  misuse %d: ERROR %d at cycle %d: %s" % (mode, code, cycle, text))
        finally:
            m.close()


def csr(binary, tmp):
    """CSR accesses: order, timing of sim/csr.h, answers, misuse."""
    m = Model(binary, tmp)
    try:
        m.handshake()
        m.send(msg(CSR_WRITE, 0, body=CSR_B.pack(0x0, 0x12345678)),
               msg(CSR_READ, 0, body=CSR_B.pack(0x0, 0)),
               msg(CSR_READ, 0, body=CSR_B.pack(0x4, 0)),
               msg(CSR_READ, 0, body=CSR_B.pack(0x8, 0)),
               msg(CSR_WRITE, 20, body=CSR_B.pack(0x0, 9)),
               msg(CSR_READ, 0, body=CSR_B.pack(0x0, 0)))
        _, _, csrs, _, done = m.run(10)
        # write in 0; reads issued in 1, 3, 5, answered one cycle later.
        want = [(2, 0x0, 0x12345678), (4, 0x4, 0xC0FFEE01), (6, 0x8, 0)]
        check(csrs == want, "CSR_DATA %r, want %r" % (csrs, want))
        check(done["busy"], "DONE not busy with a CSR write pending")
        _, _, csrs, _, done = m.run(30)
        check(csrs == [(22, 0x0, 9)], "CSR_DATA %r, want the write at 20 and the read answered at 22" % csrs)
        check(not done["busy"], "DONE busy after the CSR queue drained")
        m.send(msg(FRAME, 30, 0, FRAME_B.pack(0, 0, 0, 0) + bytes(20)), msg(CSR_READ, 60, body=CSR_B.pack(0x8, 0)))
        _, out, csrs, _, _ = m.run(100)
        check(len(out) == 1 and csrs == [(61, 0x8, 1)], "frame count register: %r" % csrs)
        m.send(msg(CSR_READ, 0, body=CSR_B.pack(0x6, 0)))
        m.send(msg(RUN, 101))
        text = m.expect_error(ERR_PROTOCOL)
        print("  CSR: order, timing and data as documented; unaligned address: %s" % text)
    finally:
        m.close()
    for addr, phrase in [(0xFC, "not answered"), (0xF8, "no read outstanding")]:
        m = Model(binary, tmp)
        try:
            m.handshake()
            m.send(msg(CSR_READ, 0, body=CSR_B.pack(addr, 0)), msg(RUN, 5000))
            text = m.expect_error(ERR_MODEL)
            check(phrase in text, "CSR 0x%x: %r" % (addr, text))
            print("  CSR 0x%02x misuse: ERROR %d: %s" % (addr, ERR_MODEL, text))
        finally:
            m.close()


def bad_param(binary, tmp):
    """A top built with an illegal parameter stops during reset: ERROR kErrModel."""
    m = Model(binary, tmp)
    try:
        m.handshake()
        text = m.expect_error(ERR_MODEL)
        check("reset" in text, "ERROR text %r does not say reset" % text)
        print("  illegal parameter: ERROR %d: %s" % (ERR_MODEL, text))
    finally:
        m.close()


def bench(binary, tmp, size, window, cycles):
    """Frames of `size` bytes back to back through the socket, `window`
    cycles per RUN; returns (cycles/s, frames/s)."""
    m = Model(binary, tmp)
    try:
        m.handshake()
        beat = m.dw // 8
        per_window = max(1, window // ((size + beat - 1) // beat))
        data = bytes(range(256)) * (size // 256 + 1)
        data = data[:size]
        seq, now, nout = 0, 0, 0
        t0 = time.perf_counter()
        while now < cycles:
            batch = []
            for _ in range(per_window):
                batch.append(msg(FRAME, now, 0, FRAME_B.pack(0, 0, seq, 0) + data))
                seq += 1
            m.send(*batch)
            _, out, _, _, _ = m.run(now + window)
            nout += len(out)
            now += window
        secs = time.perf_counter() - t0
        m.goodbye()
        return now / secs, nout / secs
    finally:
        m.close()


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    binary = args.pop(0)
    opts = {"--bench": False, "--misuse": None, "--bad-param": None}
    while args:
        a = args.pop(0)
        if a == "--bench":
            opts[a] = True
        elif a in opts and args:
            opts[a] = args.pop(0)
        else:
            print("unknown or incomplete argument %r\n%s" % (a, __doc__), file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="cosim-smoke-") as tmp:
        os.chmod(tmp, 0o700)
        if opts["--bench"]:
            for size in (64, 1500):
                for window in (64, 512, 4096):
                    cps, fps = bench(binary, tmp, size, window, 2_000_000)
                    print("  bench over the socket, %4d B frames, window %4d: %.2f M cycles/s, %.3f M frames/s"
                          % (size, window, cps / 1e6, fps / 1e6))
            return 0
        print("%s: protocol smoke test" % binary)
        a = stream(binary, tmp, seed=1, gap=0, stall=0)
        print("  stream, no backpressure: %d frames on %d port(s), exact stamps" % (sum(map(len, a[0])), len(a[0])))
        b1 = stream(binary, tmp, seed=7, gap=30, stall=40)
        b2 = stream(binary, tmp, seed=7, gap=30, stall=40, window_seed=1)
        check(b1 == b2, "same seed, other windows: different stamps")
        c = stream(binary, tmp, seed=8, gap=30, stall=40)
        check(c != b1, "another seed, same stamps")
        print("  stream, gap 30%% stall 40%%: %d frames; stamps depend on the seed only, not on the windows"
              % sum(map(len, b1[0])))
        memory(binary, tmp)
        print("  memory: page-crossing, sparse, 1 MiB and top-of-space blocks read back")
        errors(binary, tmp)
        tcp_and_trace(binary, tmp)
        print("  TCP on loopback and HELLO_ACK trace: ok")
        bad_listen(binary)
        if opts["--misuse"]:
            csr(opts["--misuse"], tmp)
            misuse(opts["--misuse"], tmp)
        if opts["--bad-param"]:
            bad_param(opts["--bad-param"], tmp)
    print("ok")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
