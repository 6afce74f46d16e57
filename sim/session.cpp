// SPDX-License-Identifier: MIT
// session.cpp: the socket protocol, model side (layout in proto.h).
//
// One connection, one conversation:
//   1. send HELLO (cycle 0); read HELLO_ACK; build and reset the model.
//   2. read messages, applying each at once, until RUN:
//        FRAME      queued on its input port; offered from its stamp on
//        CSR_*      queued for the CSR master; issued in order from their
//                   stamp on (a stamp in the past means "as soon as free")
//        MEM_WRITE  written to host memory now
//        MEM_READ   read from host memory now (the state at the window's
//                   start); answered in this window's reply
//   3. RUN to cycle T: simulate cycles now..T-1, then send, in one write:
//        ACCEPT* FRAME* CSR_DATA* MEM_DATA* DONE(cycle T)
//      A thread of its own writes the reply, while the model reads and
//      runs the next window: the harness reads a reply only as fast as it
//      checks it, and the simulation need not wait for that.
//      RUN to the current cycle simulates nothing and just answers. If the
//      DUT fails in cycle c (kErrModel), the reply carries what completed
//      before and ERROR (cycle c) in place of DONE; then the model exits 1.
//   4. GOODBYE: answer GOODBYE, final(), exit 0.
// A malformed or out-of-place message gets ERROR (code, text) and exit 1;
// so does a failing model (kErrModel). EOF or silence from the harness:
// a message on stderr and exit 1.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "memory.h"
#include "proto.h"
#include "run.h"
#include "socket.h"

namespace cosim {

namespace {

// The harness broke the protocol; code is an ErrorCode.
struct ProtoError : std::runtime_error {
    ProtoError(uint32_t c, const std::string& what) : std::runtime_error(what), code(c) {}
    uint32_t code;
};

const char* type_name(uint16_t t) {
    switch (t) {
        case kHello: return "HELLO";
        case kHelloAck: return "HELLO_ACK";
        case kFrame: return "FRAME";
        case kAccept: return "ACCEPT";
        case kRun: return "RUN";
        case kDone: return "DONE";
        case kCsrWrite: return "CSR_WRITE";
        case kCsrRead: return "CSR_READ";
        case kCsrData: return "CSR_DATA";
        case kMemWrite: return "MEM_WRITE";
        case kMemRead: return "MEM_READ";
        case kMemData: return "MEM_DATA";
        case kError: return "ERROR";
        case kGoodbye: return "GOODBYE";
        default: return "unknown";
    }
}

// The failure was already sent as ERROR and printed; just exit 1.
struct Reported {};

// Out is outgoing messages, sent with one write. A FRAME's bytes are not
// copied in: the message refers to its OutFrame, which the Out holds
// (frames) until the bytes are written, and whose buffer goes back to the
// Sim's pool afterwards (reset): a long frame crosses into the ring in
// one copy, not two (into the reply, then the reply into the ring).
class Out {
public:
    template <class Body>
    void add(MsgType type, uint16_t flags, uint64_t cycle, const Body& body, const void* tail = nullptr,
             size_t tail_len = 0) {
        head(type, flags, cycle, body, tail_len);
        if (tail_len != 0) append(tail, tail_len);
    }
    // Adds a FRAME for frames[i], referring to its bytes (copying them if
    // it is short: a piece of its own costs more than such a copy).
    void add_frame(size_t i) {
        const OutFrame& f = frames[i];
        head(kFrame, f.bad ? kFrameBad : 0, f.cycle, FrameBody{f.port, 0, f.seq, f.last_cycle}, f.data.size());
        if (f.data.size() < kMinRef) {
            append(f.data.data(), f.data.size());
            return;
        }
        refs_.push_back(Ref{buf_.size(), i});
        size_ += f.data.size();
    }
    // Appends o's messages (which must refer to no frame).
    void append_all(const Out& o) { append(o.buf_.data(), o.buf_.size()); }
    size_t size() const { return size_; }
    // Writes every message, in order, with one call.
    void write(Conn& c) {
        spans_.clear();
        size_t at = 0;
        for (const Ref& r : refs_) {
            spans_.push_back(Span{buf_.data() + at, r.at - at});
            spans_.push_back(Span{frames[r.frame].data.data(), frames[r.frame].data.size()});
            at = r.at;
        }
        spans_.push_back(Span{buf_.data() + at, buf_.size() - at});
        c.write(spans_.data(), spans_.size());
    }
    // Empties this, giving the frames' buffers back to sim.
    void reset(Sim& sim) {
        sim.recycle_frames(frames);
        buf_.clear();
        refs_.clear();
        size_ = 0;
    }
    void swap(Out& o) noexcept {
        frames.swap(o.frames);
        buf_.swap(o.buf_);
        refs_.swap(o.refs_);
        spans_.swap(o.spans_);
        std::swap(size_, o.size_);
    }

    std::vector<OutFrame> frames;  // those the FRAME messages refer to

private:
    static constexpr size_t kMinRef = 512;  // bytes

    struct Ref {
        size_t at;     // the frame's bytes follow buf_[0, at)
        size_t frame;  // index in frames
    };

    template <class Body>
    void head(MsgType type, uint16_t flags, uint64_t cycle, const Body& body, size_t tail_len) {
        static_assert(std::is_trivially_copyable<Body>::value, "message bodies are plain structs");
        const MsgHeader h{uint16_t(type), flags, uint32_t(sizeof(Body) + tail_len), cycle};
        append(&h, sizeof h);
        append(&body, sizeof body);
    }
    void append(const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        buf_.insert(buf_.end(), b, b + n);
        size_ += n;
    }

    std::vector<uint8_t> buf_;  // the messages but for the frames' bytes
    std::vector<Ref> refs_;
    std::vector<Span> spans_;  // write()'s, kept for its capacity
    size_t size_ = 0;          // bytes in all
};

// Writer writes the model's messages to the harness from a thread of its
// own, in the order they were handed over. At most one Out waits while
// another is written, so a model is at most two replies ahead of the
// harness's reads. A failed write ends the writing; the next send throws
// it as PeerGone.
class Writer {
public:
    explicit Writer(Conn& conn) : conn_(conn), thread_([this] { loop(); }) {}
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    ~Writer() { finish(); }

    // Hands over out's messages (waiting while the Out before still waits)
    // and gives out back written: either itself or one handed over before,
    // whose frames the caller gives back (Out::reset).
    // A small Out with nothing ahead of it is written at once: it fits
    // the socket's buffer, and waking the thread would only add latency
    // (a live bridge waits for every reply). So is any Out the ring to
    // the harness has room for, since copying it there cannot wait.
    // Invariant: less model CPU per frame than handing it to the thread,
    // measured by BenchmarkHarnessVsRaw (harness/PERFORMANCE.md).
    void send(Out& out) {
        std::unique_lock<std::mutex> lk(mu_);
        // The thread's state first: write_room reads the ring's position,
        // which only an idle writer leaves alone.
        if (!waiting_ && !writing_ && error_.empty() &&
            (out.size() <= kDirect || out.size() <= conn_.write_room())) {
            lk.unlock();  // only this thread hands over: the writer stays idle
            try {
                out.write(conn_);
            } catch (const std::exception& e) {
                lk.lock();
                error_ = e.what();
                throw;
            }
            return;
        }
        cv_.wait(lk, [this] { return !waiting_; });
        if (!error_.empty()) throw PeerGone(error_);
        waiting_out_.swap(out);
        waiting_ = true;
        out.swap(spare_);
        cv_.notify_all();
    }
    // Writes what is left and ends the thread; never throws.
    void finish() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (stop_) return;
            stop_ = true;
            cv_.notify_all();
        }
        thread_.join();
    }

private:
    static constexpr size_t kDirect = 64 << 10;  // bytes: well under a Unix socket's buffer

    void loop() {
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            cv_.wait(lk, [this] { return waiting_ || stop_; });
            if (!waiting_) return;  // stopped with nothing left
            Out out;
            out.swap(waiting_out_);
            waiting_ = false;
            writing_ = true;
            const bool failed = !error_.empty();
            cv_.notify_all();
            lk.unlock();
            std::string err;
            if (!failed) {
                try {
                    out.write(conn_);
                } catch (const std::exception& e) {
                    err = e.what();
                }
            }
            lk.lock();
            if (error_.empty()) error_ = err;
            spare_.swap(out);  // its frames go back to the pool with the next send's
            writing_ = false;
            cv_.notify_all();
        }
    }

    Conn& conn_;
    std::mutex mu_;
    std::condition_variable cv_;
    Out waiting_out_;  // handed over, not yet taken by the thread
    Out spare_;        // the last one written, for reuse
    bool waiting_ = false;
    bool writing_ = false;
    bool stop_ = false;
    std::string error_;  // the first failed write's
    std::thread thread_;  // last: it starts with everything above ready
};

class Session {
public:
    Session(Conn& conn, const Options& opt, const ModelInfo& info, const DutFactory& make)
        : conn_(conn), writer_(conn), opt_(opt), info_(info), make_(make) {}

    int run();

private:
    void hello();
    void start(const MsgHeader& h);
    bool message(const MsgHeader& h);  // false after GOODBYE
    void frame(const MsgHeader& h);
    void csr(const MsgHeader& h, bool read);
    void mem_write(const MsgHeader& h);
    void mem_read(const MsgHeader& h);
    void run_window(const MsgHeader& h);
    void read_msg(MsgHeader& h, bool eof_ok_at_start);
    [[noreturn]] void harness_error(const MsgHeader& h);
    void send_error(uint32_t code, const std::string& text);

    template <class Body>
    Body fixed(const MsgHeader& h, bool exact) const {
        if (h.len < sizeof(Body) || (exact && h.len != sizeof(Body))) {
            throw ProtoError(kErrProtocol, std::string(type_name(h.type)) + " body is " + std::to_string(h.len) +
                                               " bytes, want " + (exact ? "" : "at least ") +
                                               std::to_string(sizeof(Body)));
        }
        Body b;
        std::memcpy(&b, body_.data(), sizeof b);
        return b;
    }
    void no_flags(const MsgHeader& h, uint16_t allowed) const {
        if ((h.flags & ~allowed) != 0) {
            throw ProtoError(kErrProtocol, std::string(type_name(h.type)) + " has unknown flags " +
                                               std::to_string(h.flags & ~allowed) + " (allowed mask " +
                                               std::to_string(allowed) + ")");
        }
    }

    Conn& conn_;  // read here, written by writer_
    Writer writer_;
    const Options& opt_;
    const ModelInfo& info_;
    const DutFactory& make_;
    Instance model_;
    std::vector<uint8_t> body_;     // body of the message being handled
    Out reply_;                     // the RUN reply being built
    Out mem_reply_;                 // MEM_DATA answers for the current window
    std::vector<uint32_t> in_seq_;  // next FRAME seq per input port
    std::vector<uint64_t> in_stamp_;  // last FRAME stamp per input port
};

void Session::send_error(uint32_t code, const std::string& text) {
    std::fprintf(stderr, "model %s: error: %s\n", info_.name.c_str(), text.c_str());
    try {
        Out o;
        const uint64_t cycle = model_.started() ? model_.sim().now() : 0;
        o.add(kError, 0, cycle, ErrorBody{code, uint32_t(text.size())}, text.data(), text.size());
        writer_.send(o);
    } catch (const std::exception&) {
        // The harness is gone too; stderr has the reason.
    }
}

void Session::read_msg(MsgHeader& h, bool eof_ok_at_start) {
    if (!conn_.read(&h, sizeof h, eof_ok_at_start)) {
        throw PeerGone("the harness closed the connection without GOODBYE");
    }
    // The largest body: a fixed part (at most 24 bytes) and 1 MiB of data.
    if (h.len > kMaxBody + 64) {
        throw ProtoError(kErrProtocol, std::string(type_name(h.type)) + " message of " + std::to_string(h.len) +
                                           " body bytes is over the limit of " + std::to_string(kMaxBody + 64));
    }
    // A FRAME's bytes stay in the stream until frame() reads them into
    // the frame's own buffer.
    const size_t n = h.type == kFrame ? std::min<size_t>(h.len, sizeof(FrameBody)) : h.len;
    body_.resize(n);
    if (n != 0) conn_.read(body_.data(), n, false);
}

void Session::harness_error(const MsgHeader& h) {
    std::string text;
    uint32_t code = 0;
    if (h.len >= sizeof(ErrorBody)) {
        ErrorBody e;
        std::memcpy(&e, body_.data(), sizeof e);
        code = e.code;
        const size_t n = std::min<size_t>(e.text_len, h.len - sizeof e);
        text.assign(reinterpret_cast<const char*>(body_.data() + sizeof e), n);
    }
    throw PeerGone("the harness sent ERROR " + std::to_string(code) + ": " + text);
}

void Session::hello() {
    const std::string text = hello_text(info_, opt_);
    HelloBody b{};
    b.version = kProtoVersion;
    b.data_width = info_.data_width;
    b.in_ports = uint16_t(info_.in_ports);
    b.out_ports = uint16_t(info_.out_ports);
    b.text_len = uint32_t(text.size());
    Out o;
    o.add(kHello, 0, 0, b, text.data(), text.size());
    writer_.send(o);
}

void Session::start(const MsgHeader& h) {
    if (h.type == kError) harness_error(h);
    if (h.type != kHelloAck) {
        throw ProtoError(kErrProtocol, std::string("expected HELLO_ACK, got ") + type_name(h.type) + " (type " +
                                           std::to_string(h.type) + ")");
    }
    const HelloAckBody a = fixed<HelloAckBody>(h, false);
    if (a.version != kProtoVersion) {
        throw ProtoError(kErrVersion, "the harness speaks protocol version " + std::to_string(a.version) +
                                          ", this model version " + std::to_string(kProtoVersion));
    }
    no_flags(h, kAckTrace);
    if (a.text_len != h.len - sizeof a) {
        throw ProtoError(kErrProtocol, "HELLO_ACK text_len " + std::to_string(a.text_len) + " but " +
                                           std::to_string(h.len - sizeof a) + " text bytes follow");
    }
    if (a.src_gap_pct > 99 || a.sink_stall_pct > 99) {
        throw ProtoError(kErrProtocol, "HELLO_ACK src_gap_pct and sink_stall_pct must be 0..99, got " +
                                           std::to_string(a.src_gap_pct) + " and " + std::to_string(a.sink_stall_pct));
    }
    std::string trace = opt_.trace_path;
    TraceWindow window{0, UINT64_MAX};  // --trace: every cycle
    if (h.flags & kAckTrace) {
        trace.assign(reinterpret_cast<const char*>(body_.data() + sizeof a), a.text_len);
        if (trace.empty()) throw ProtoError(kErrProtocol, "HELLO_ACK asks for a trace but gives no path");
        if (a.trace_from > a.trace_to) {
            throw ProtoError(kErrProtocol, "HELLO_ACK trace window from cycle " + std::to_string(a.trace_from) +
                                               " to " + std::to_string(a.trace_to) + " is backwards");
        }
        window = TraceWindow{a.trace_from, a.trace_to};
    }
    model_.start(opt_, make_, trace, window, Backpressure{a.seed, a.src_gap_pct, a.sink_stall_pct});
    in_seq_.assign(info_.in_ports, 0);
    in_stamp_.assign(info_.in_ports, 0);
}

void Session::frame(const MsgHeader& h) {
    const FrameBody f = fixed<FrameBody>(h, false);
    no_flags(h, kFrameBad);
    const size_t n = h.len - sizeof f;
    // The message's name in errors, built only for one: this runs per frame.
    const auto what = [&f] { return "FRAME port " + std::to_string(f.port) + " seq " + std::to_string(f.seq); };
    if (f.port >= info_.in_ports) {
        throw ProtoError(kErrPort, what() + ": the model has " + std::to_string(info_.in_ports) + " input port(s)");
    }
    if (n == 0 || n > kMaxBody) {
        throw ProtoError(kErrProtocol, what() + ": " + std::to_string(n) + " bytes, want 1.." + std::to_string(kMaxBody));
    }
    if (f.seq != in_seq_[f.port]) {
        throw ProtoError(kErrProtocol, what() + ": expected seq " + std::to_string(in_seq_[f.port]));
    }
    const uint64_t now = model_.sim().now();
    if (h.cycle < now) {
        throw ProtoError(kErrProtocol, what() + ": stamped cycle " + std::to_string(h.cycle) +
                                           " but the model is at cycle " + std::to_string(now) +
                                           " (send frames before their cycle is run)");
    }
    if (h.cycle < in_stamp_[f.port]) {
        throw ProtoError(kErrProtocol, what() + ": stamped cycle " + std::to_string(h.cycle) +
                                           ", before the previous frame's " + std::to_string(in_stamp_[f.port]));
    }
    in_seq_[f.port] += 1;
    in_stamp_[f.port] = h.cycle;
    InFrame in;
    in.stamp = h.cycle;
    in.seq = f.seq;
    in.bad = (h.flags & kFrameBad) != 0;
    in.data = model_.sim().frame_buffer();
    conn_.read_append(in.data, n);
    model_.sim().push_frame(f.port, std::move(in));
}

void Session::csr(const MsgHeader& h, bool read) {
    const CsrBody c = fixed<CsrBody>(h, true);
    no_flags(h, 0);
    if (!model_.sim().has_csr()) {
        throw ProtoError(kErrProtocol, std::string(type_name(h.type)) + ": model " + info_.name + " has no CSR port");
    }
    if (c.addr > 0xFFFF || (c.addr & 3) != 0) {
        char addr[16];
        std::snprintf(addr, sizeof addr, "0x%x", c.addr);
        throw ProtoError(kErrProtocol, std::string(type_name(h.type)) + ": address " + addr +
                                           " is not a multiple of 4 below 0x10000");
    }
    model_.sim().push_csr(CsrOp{read, c.addr, c.data, h.cycle});
}

void Session::mem_write(const MsgHeader& h) {
    const MemBody m = fixed<MemBody>(h, false);
    no_flags(h, 0);
    const size_t n = h.len - sizeof m;
    if (m.length != n || n > kMaxBody) {
        throw ProtoError(kErrProtocol, "MEM_WRITE length " + std::to_string(m.length) + " with " +
                                           std::to_string(n) + " bytes following (at most " +
                                           std::to_string(kMaxBody) + ")");
    }
    if (n != 0 && m.addr + (n - 1) < m.addr) throw ProtoError(kErrProtocol, "MEM_WRITE wraps past 2^64");
    model_.sim().memory().write(m.addr, body_.data() + sizeof m, n);
}

void Session::mem_read(const MsgHeader& h) {
    const MemBody m = fixed<MemBody>(h, true);
    no_flags(h, 0);
    if (m.length > kMaxBody) {
        throw ProtoError(kErrProtocol, "MEM_READ of " + std::to_string(m.length) + " bytes, at most " +
                                           std::to_string(kMaxBody));
    }
    if (m.length != 0 && m.addr + (m.length - 1) < m.addr) throw ProtoError(kErrProtocol, "MEM_READ wraps past 2^64");
    std::vector<uint8_t> data(m.length);
    model_.sim().memory().read(m.addr, data.data(), data.size());
    mem_reply_.add(kMemData, 0, model_.sim().now(), MemBody{m.addr, m.length, 0}, data.data(), data.size());
}

void Session::run_window(const MsgHeader& h) {
    if (h.len != 0) throw ProtoError(kErrProtocol, "RUN has a body of " + std::to_string(h.len) + " bytes, want 0");
    no_flags(h, 0);
    Sim& sim = model_.sim();
    if (h.cycle < sim.now()) {
        throw ProtoError(kErrProtocol, "RUN to cycle " + std::to_string(h.cycle) + " but the model is at cycle " +
                                           std::to_string(sim.now()));
    }
    conn_.release();  // the harness may send the next window's frames meanwhile
    // A failing DUT still gets its results up to the failing cycle sent,
    // followed by ERROR in place of DONE, so the harness can show them.
    std::string failure;
    try {
        sim.run_until(h.cycle);
    } catch (const ModelError& e) {
        failure = e.what();
    }

    for (const Accept& a : sim.accepts) {
        reply_.add(kAccept, 0, a.first_cycle, AcceptBody{a.port, 0, a.seq, a.last_cycle});
    }
    reply_.frames.swap(sim.frames);  // empty since the last reply's reset
    for (size_t i = 0; i < reply_.frames.size(); ++i) reply_.add_frame(i);
    for (const CsrResult& c : sim.csr_results) reply_.add(kCsrData, 0, c.cycle, CsrBody{c.addr, c.data});
    reply_.append_all(mem_reply_);
    if (!failure.empty()) {
        std::fprintf(stderr, "model %s: error: %s\n", info_.name.c_str(), failure.c_str());
        reply_.add(kError, 0, sim.now(), ErrorBody{kErrModel, uint32_t(failure.size())}, failure.data(),
                   failure.size());
        writer_.send(reply_);
        throw Reported();
    }
    DoneBody d{};
    d.frames_out = uint32_t(reply_.frames.size());
    d.frames_queued = uint32_t(sim.frames_queued());
    d.src_stalls = sim.src_stalls();
    d.sink_stalls = sim.sink_stalls();
    reply_.add(kDone, sim.busy() ? kDoneBusy : 0, sim.now(), d);
    writer_.send(reply_);

    reply_.reset(sim);  // this reply's frames, or those of one written before
    sim.accepts.clear();
    sim.csr_results.clear();
    mem_reply_.reset(sim);
}

bool Session::message(const MsgHeader& h) {
    switch (h.type) {
        case kFrame: frame(h); return true;
        case kCsrWrite: csr(h, false); return true;
        case kCsrRead: csr(h, true); return true;
        case kMemWrite: mem_write(h); return true;
        case kMemRead: mem_read(h); return true;
        case kRun: run_window(h); return true;
        case kGoodbye: {
            fixed<GoodbyeBody>(h, true);
            Out o;
            o.add(kGoodbye, 0, model_.sim().now(), GoodbyeBody{0, 0});
            writer_.send(o);
            return false;
        }
        case kError: harness_error(h);
        case kHello:
        case kHelloAck:
        case kAccept:
        case kDone:
        case kCsrData:
        case kMemData:
            throw ProtoError(kErrProtocol, std::string("unexpected ") + type_name(h.type) + " from the harness");
        default:
            throw ProtoError(kErrProtocol, "unknown message type " + std::to_string(h.type));
    }
}

int Session::run() {
    int status = 1;
    try {
        hello();
        MsgHeader h{};
        read_msg(h, true);
        start(h);
        for (;;) {
            read_msg(h, true);
            if (!message(h)) break;
        }
        status = 0;
    } catch (const ProtoError& e) {
        send_error(e.code, e.what());
    } catch (const ModelError& e) {
        send_error(kErrModel, e.what());
    } catch (const Reported&) {
        // ERROR sent with the partial reply.
    } catch (const PeerGone& e) {
        std::fprintf(stderr, "model %s: %s%s\n", info_.name.c_str(), e.what(),
                     model_.started() ? (", at cycle " + std::to_string(model_.sim().now())).c_str() : "");
    } catch (const std::exception& e) {
        send_error(kErrInternal, e.what());
    }
    writer_.finish();  // the last reply, GOODBYE or ERROR reaches the harness first
    model_.stop();
    if (model_.started()) print_dma_counters(info_, model_.sim());
    return status;
}

}  // namespace

int serve_socket(const Options& opt, const ModelInfo& info, const DutFactory& make) {
    try {
        // Mapped before listening: once the harness could connect, it
        // finds the rings marked attached.
        std::unique_ptr<RingMap> rings;
        if (opt.ring_fd >= 0) rings = std::make_unique<RingMap>(opt.ring_fd);
        Listener l = opt.socket_path.empty() ? Listener::tcp(opt.listen_addr) : Listener::unix_path(opt.socket_path);
        std::printf("LISTEN %s\n", l.where().c_str());
        std::fflush(stdout);
        const int fd = l.accept_one(opt.accept_timeout_s > 0 ? opt.accept_timeout_s * 1000 : -1);
        l.close();
        Conn conn(fd, opt.timeout_s > 0 ? opt.timeout_s * 1000 : -1, rings.get());
        Session s(conn, opt, info, make);
        return s.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "model %s: %s\n", info.name.c_str(), e.what());
        return 1;
    }
}

}  // namespace cosim
