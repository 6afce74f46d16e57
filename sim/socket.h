// SPDX-License-Identifier: MIT
// socket.h: the model's end of the harness connection: listen, accept one
// peer, then buffered reads and whole-buffer writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cosim {

// The harness closed the connection, reset it, or stayed silent past the
// timeout. Nothing can be sent any more; the model reports on stderr.
struct PeerGone : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// split_listen splits --listen's [HOST:]PORT into host (loopback when none
// is given; brackets of an IPv6 address removed) and port. Throws
// std::runtime_error unless the port is a decimal number 0 to 65535:
// getaddrinfo would take 99999 and listen on 99999 mod 65536.
void split_listen(const std::string& hostport, std::string& host, std::string& port);

// Listener owns a listening socket. A Unix socket file is removed when the
// listener is destroyed (the harness owns the directory around it).
class Listener {
public:
    // A Unix domain socket at path; the file must not exist yet.
    static Listener unix_path(const std::string& path);
    // TCP on "PORT", ":PORT" (both loopback only), "HOST:PORT" or
    // "[V6ADDR]:PORT". Port 0 picks a free port; where() tells which.
    static Listener tcp(const std::string& hostport);

    Listener(Listener&& o) noexcept;
    Listener& operator=(Listener&&) = delete;
    Listener(const Listener&) = delete;
    ~Listener();

    // "unix PATH" or "tcp HOST:PORT", with the real port.
    const std::string& where() const { return where_; }

    // Waits for one peer (timeout_ms < 0: forever) and returns its socket,
    // which the caller owns. Throws std::runtime_error on timeout.
    int accept_one(int timeout_ms);

    // Stops listening now (and removes the socket file).
    void close();

private:
    Listener(int fd, std::string unlink_path, std::string where)
        : fd_(fd), unlink_path_(std::move(unlink_path)), where_(std::move(where)) {}
    int fd_ = -1;
    std::string unlink_path_;
    std::string where_;
};

// Ring is one direction of the memory a harness shares with the model
// (cosim/shm_linux.go has the layout and the protocol): one writer, one
// reader, each publishing its position; a reader with nothing to read
// raises its sleep flag and waits for a doorbell byte on the socket.
struct Ring {
    uint64_t* tail = nullptr;
    uint64_t* head = nullptr;
    uint32_t* sleep = nullptr;
    uint8_t* data = nullptr;
    uint64_t size = 0;
    uint64_t pos = 0;  // this side's own position
    uint64_t shown = 0;  // the position last published
    uint64_t peer = 0;   // the other side's position as last read (a writer's view of head)
};

// RingMap maps the shared memory the harness passed (--ring-fd) and marks
// it attached: a harness that finds the mark once it could connect talks
// through the rings, else through the socket alone (a model program that
// knows nothing of rings ignores the memory).
class RingMap {
public:
    // Takes ownership of fd (closes it). Throws std::runtime_error.
    explicit RingMap(int fd);
    RingMap(const RingMap&) = delete;
    RingMap& operator=(const RingMap&) = delete;
    ~RingMap();
    // 0: harness to model, 1: model to harness.
    Ring ring(int i) const;

private:
    uint8_t* mem_ = nullptr;
    size_t len_ = 0;
    uint64_t size_ = 0;  // of one ring
};

// Span is a piece of a message stream being written.
struct Span {
    const uint8_t* data;
    size_t len;
};

// Conn owns a connected socket. Reads are buffered; each write() sends
// all its spans (one reply = one call). With rings, the bytes go through
// them and the socket carries doorbells only. read() is called from one
// thread and write() from another.
class Conn {
public:
    // Takes ownership of fd; uses rings when given (not owned).
    // timeout_ms < 0: reads wait forever.
    Conn(int fd, int timeout_ms, const RingMap* rings = nullptr);
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;
    ~Conn();

    // Reads exactly n bytes into dst. If the peer closed cleanly before the
    // first byte and eof_ok, returns false; every other failure throws
    // PeerGone.
    bool read(void* dst, size_t n, bool eof_ok);
    // Reads exactly n bytes, appending them to v. Throws PeerGone.
    void read_append(std::vector<uint8_t>& v, size_t n);
    // Gives the harness's writer the room of everything read so far. Reads
    // publish it only now and then; call this before a long stretch of work
    // without reads.
    void release();
    // Sends the n spans' bytes, in order, as one write. Throws PeerGone.
    void write(const Span* spans, size_t n);
    // How many bytes a write takes now without waiting: the free space of
    // the ring to the harness, 0 without rings. Not while a write runs.
    size_t write_room() const;

private:
    size_t fill();  // one recv into buf_; 0 on EOF
    bool ring_read(uint8_t* dst, size_t n, bool eof_ok);
    template <class Put>
    bool ring_take(size_t n, bool eof_ok, Put&& put);
    void ring_put(const uint8_t* src, size_t n);
    void ring_publish();
    void send_all(const Span* spans, size_t n);
    void wait_room(uint32_t& wait_us);  // the ring to the harness is full

    int fd_;
    bool rings_ = false;
    Ring in_;   // harness to model
    Ring out_;  // model to harness
    int timeout_ms_;
    std::vector<uint8_t> buf_;
    size_t head_ = 0;  // next unread byte
    size_t tail_ = 0;  // end of buffered bytes
};

}  // namespace cosim
