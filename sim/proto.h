// SPDX-License-Identifier: MIT
// proto.h: the co-simulation socket protocol, model side. The Go side is
// cosim/proto.go; the two must agree byte for byte (static_asserts here, a
// Go test that talks to a real model there).
//
// Every message is a 16-byte header followed by `len` body bytes. All
// integers are little-endian. Bodies start with a fixed part (the structs
// below) and some end with variable bytes (frame data, text).
//
// Conversation (one round trip per window, never per cycle or per frame):
//   model   -> harness  HELLO        name, data width, ports, parameters
//   harness -> model    HELLO_ACK    trace flag and window, seed, backpressure settings
//   then per window:
//   harness -> model    FRAME* CSR_WRITE* CSR_READ* MEM_WRITE* MEM_READ* RUN
//   model   -> harness  ACCEPT* FRAME* CSR_DATA* MEM_DATA* DONE
//   at the end:
//   harness -> model    GOODBYE      model finishes, answers GOODBYE, exits 0
// Either side may send ERROR (code, text) and close.
#pragma once

#include <cstdint>

namespace cosim {

constexpr uint32_t kProtoVersion = 2;  // 2: HELLO_ACK carries the trace window
constexpr uint32_t kMaxBody = 1u << 20;  // a frame or memory block is at most 1 MiB

enum MsgType : uint16_t {
    kHello = 1,      // model -> harness: HelloBody + text
    kHelloAck = 2,   // harness -> model: HelloAckBody + text (trace file path)
    kFrame = 3,      // both ways: FrameBody + frame bytes; cycle = arrival (in) / first beat (out)
    kAccept = 4,     // model -> harness: AcceptBody; cycle = first beat accepted by the DUT
    kRun = 5,        // harness -> model: no body; cycle = run until this cycle (exclusive)
    kDone = 6,       // model -> harness: DoneBody; cycle = the cycle reached
    kCsrWrite = 7,   // harness -> model: CsrBody; issued on the CSR bus in message order,
                     // no earlier than the header cycle, during the window (sim/README.md)
    kCsrRead = 8,    // harness -> model: CsrBody (data ignored)
    kCsrData = 9,    // model -> harness: CsrBody, answer to kCsrRead
    kMemWrite = 10,  // harness -> model: MemBody + bytes, host memory the DUT reaches by DMA
    kMemRead = 11,   // harness -> model: MemBody (len in `length`)
    kMemData = 12,   // model -> harness: MemBody + bytes
    kError = 13,     // both ways: ErrorBody + text; the sender closes after it
    kGoodbye = 14,   // both ways: GoodbyeBody
};

struct MsgHeader {
    uint16_t type;   // MsgType
    uint16_t flags;  // per type, see below
    uint32_t len;    // body bytes after this header
    uint64_t cycle;  // cycle stamp, meaning per type
};
static_assert(sizeof(MsgHeader) == 16, "header layout");

// kHello. The text holds "key=value" lines: name=<model>, top=<verilog top>,
// param.<NAME>=<value> for every Verilog parameter the build fixed.
struct HelloBody {
    uint32_t version;     // kProtoVersion
    uint32_t data_width;  // bits per beat
    uint16_t in_ports;    // s_axis ports
    uint16_t out_ports;   // m_axis ports
    uint32_t text_len;    // bytes of text after this struct
};
static_assert(sizeof(HelloBody) == 16, "hello layout");

// kHelloAck flags.
constexpr uint16_t kAckTrace = 1;  // write an FST trace to the path in the text

struct HelloAckBody {
    uint32_t version;       // kProtoVersion
    uint32_t text_len;      // bytes of text after this struct
    uint64_t seed;          // seeds the adapters' backpressure generators
    uint16_t src_gap_pct;   // percent of cycles a source holds tvalid low between beats
    uint16_t sink_stall_pct;// percent of cycles a sink holds tready low
    uint32_t reserved;
    // With kAckTrace: cycles trace_from..trace_to-1 go into the trace, the
    // rest do not (0 and UINT64_MAX: all of them).
    uint64_t trace_from;
    uint64_t trace_to;
};
static_assert(sizeof(HelloAckBody) == 40, "hello ack layout");

// kFrame flags.
constexpr uint16_t kFrameBad = 1;  // tuser[0] on the last beat: a bad frame

struct FrameBody {
    uint16_t port;  // input port (harness -> model) or output port (model -> harness)
    uint16_t reserved;
    uint32_t seq;   // per port and direction, from 0: the order frames were sent/emitted
    uint64_t last_cycle;  // model -> harness: the cycle the last beat left (links
                          // deliver a frame latency cycles after it); 0 harness -> model
};
static_assert(sizeof(FrameBody) == 16, "frame layout");

// kAccept: the DUT took input frame `seq` of `port`: first beat at the
// header cycle, last beat at last_cycle. Golden models are fed these stamps.
struct AcceptBody {
    uint16_t port;
    uint16_t reserved;
    uint32_t seq;
    uint64_t last_cycle;
};
static_assert(sizeof(AcceptBody) == 16, "accept layout");

// kDone flags.
constexpr uint16_t kDoneBusy = 1;  // input frames still queued or the DUT reports not idle

struct DoneBody {
    uint32_t frames_out;     // kFrame messages sent in this reply
    uint32_t frames_queued;  // input frames not yet fully accepted by the DUT
    uint64_t src_stalls;     // cumulative cycles a source had a beat but tready was low
    uint64_t sink_stalls;    // cumulative cycles a sink held tready low with tvalid high
};
static_assert(sizeof(DoneBody) == 24, "done layout");

struct CsrBody {
    uint32_t addr;
    uint32_t data;
};
static_assert(sizeof(CsrBody) == 8, "csr layout");

struct MemBody {
    uint64_t addr;
    uint32_t length;  // kMemRead: bytes wanted; otherwise bytes that follow
    uint32_t reserved;
};
static_assert(sizeof(MemBody) == 16, "mem layout");

// kError codes.
enum ErrorCode : uint32_t {
    kErrProtocol = 1,  // malformed or unexpected message
    kErrVersion = 2,   // protocol version mismatch
    kErrPort = 3,      // port number out of range
    kErrModel = 4,     // the RTL stopped ($finish, $error, assertion)
    kErrInternal = 5,
};

struct ErrorBody {
    uint32_t code;
    uint32_t text_len;
};
static_assert(sizeof(ErrorBody) == 8, "error layout");

struct GoodbyeBody {
    uint32_t reason;  // 0 normal end
    uint32_t reserved;
};
static_assert(sizeof(GoodbyeBody) == 8, "goodbye layout");

}  // namespace cosim
