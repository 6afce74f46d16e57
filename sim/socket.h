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

// Conn owns a connected socket. Reads are buffered; each write() sends the
// whole buffer (one reply = one call).
class Conn {
public:
    // Takes ownership of fd. timeout_ms < 0: reads wait forever.
    Conn(int fd, int timeout_ms);
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;
    ~Conn();

    // Reads exactly n bytes into dst. If the peer closed cleanly before the
    // first byte and eof_ok, returns false; every other failure throws
    // PeerGone.
    bool read(void* dst, size_t n, bool eof_ok);
    // Sends n bytes from src (the caller keeps src). Throws PeerGone.
    void write(const void* src, size_t n);

private:
    size_t fill();  // one recv into buf_; 0 on EOF

    int fd_;
    int timeout_ms_;
    std::vector<uint8_t> buf_;
    size_t head_ = 0;  // next unread byte
    size_t tail_ = 0;  // end of buffered bytes
};

}  // namespace cosim
