#!/usr/bin/env python3
# A broken peer for the `cosim run` tests (cmd/cosim/run_test.go). It is no
# model of any RTL: the tests copy it to a model's path in a --models
# directory, where it listens on --socket like a Verilated model
# (sim/README.md), speaks just enough of the protocol (sim/proto.h) to get
# into a run, and then breaks it as the file "mode" next to it says:
#   hello-garbage  bytes that are no message instead of HELLO
#   version        HELLO with protocol version 3 (this side speaks 2)
#   garbage        at the third RUN, bytes that are no message instead of DONE
#   truncated      at the third RUN, half a FRAME, then it exits
# Just before it misbehaves it writes the time (Unix seconds) to the file
# "fault_time" next to it. After garbage or a bad HELLO it reads until the
# harness hangs up, as a model does, and exits 1.
import os
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(sys.argv[0]))
HELLO, HELLO_ACK, FRAME, RUN, DONE, GOODBYE = 1, 2, 3, 5, 6, 14
HEADER = struct.Struct("<HHIQ")  # type, flags, body length, cycle
GARBAGE = b"\xde\xad\xbe\xef this is not a protocol message \xff" * 4


def fault():
    with open(os.path.join(HERE, "fault_time"), "w") as f:
        f.write(repr(time.time()))


def recv_exact(conn, n):
    b = b""
    while len(b) < n:
        chunk = conn.recv(n - len(b))
        if not chunk:
            raise EOFError("the harness hung up")
        b += chunk
    return b


def wait_hangup(conn):
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass
    sys.exit(1)


def main():
    with open(os.path.join(HERE, "mode")) as f:
        mode = f.read().strip()
    args = sys.argv[1:]
    path = args[args.index("--socket") + 1]
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    print("LISTEN unix " + path, flush=True)
    print("broken model: mode " + mode, file=sys.stderr, flush=True)
    conn, _ = srv.accept()

    if mode == "hello-garbage":
        fault()
        conn.sendall(GARBAGE)
        wait_hangup(conn)
    text = b"name=icrc\ntop=nic_icrc_top\nparam.DATA_WIDTH=64\n"
    body = struct.pack("<IIHHI", 3 if mode == "version" else 2, 64, 2, 2, len(text)) + text
    if mode == "version":
        fault()
    conn.sendall(HEADER.pack(HELLO, 0, len(body), 0) + body)
    if mode == "version":
        wait_hangup(conn)

    queued, runs = 0, 0
    while True:
        typ, _, n, cycle = HEADER.unpack(recv_exact(conn, HEADER.size))
        recv_exact(conn, n)
        if typ == FRAME:
            queued += 1  # never accepted
        elif typ == GOODBYE:
            conn.sendall(HEADER.pack(GOODBYE, 0, 8, cycle) + bytes(8))
            sys.exit(0)
        elif typ == RUN:
            runs += 1
            if runs == 3 and mode == "garbage":
                fault()
                conn.sendall(GARBAGE)
                wait_hangup(conn)
            if runs == 3 and mode == "truncated":
                fault()
                # The header promises 116 body bytes; 10 come.
                conn.sendall(HEADER.pack(FRAME, 0, 16 + 100, cycle - 1) + bytes(10))
                conn.close()
                sys.exit(1)
            done = struct.pack("<IIQQ", 0, queued, 0, 0)
            conn.sendall(HEADER.pack(DONE, 1 if queued else 0, len(done), cycle) + done)


if __name__ == "__main__":
    main()
