// SPDX-License-Identifier: MIT
// socket.cpp: listening, accepting and buffered I/O (see socket.h).
#include "socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cosim {

namespace {

std::string sys_error(const std::string& what) { return what + ": " + std::strerror(errno); }

// Waits until fd is readable. timeout_ms < 0 waits forever.
bool wait_readable(int fd, int timeout_ms) {
    pollfd p{fd, POLLIN, 0};
    for (;;) {
        const int r = ::poll(&p, 1, timeout_ms);
        if (r > 0) return true;
        if (r == 0) return false;
        if (errno != EINTR) throw std::runtime_error(sys_error("poll"));
    }
}

}  // namespace

// ---- Listener ----

Listener Listener::unix_path(const std::string& path) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof sa.sun_path) {
        throw std::runtime_error("--socket: path must be 1.." + std::to_string(sizeof sa.sun_path - 1) +
                                 " bytes, got " + std::to_string(path.size()));
    }
    std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(sys_error("socket"));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        const std::string e = sys_error("bind " + path);
        ::close(fd);
        throw std::runtime_error(e);
    }
    if (::listen(fd, 1) != 0) {
        const std::string e = sys_error("listen " + path);
        ::close(fd);
        ::unlink(path.c_str());
        throw std::runtime_error(e);
    }
    return Listener(fd, path, "unix " + path);
}

Listener Listener::tcp(const std::string& hostport) {
    std::string host = "127.0.0.1";
    std::string port = hostport;
    const size_t colon = hostport.rfind(':');
    if (colon != std::string::npos) {
        port = hostport.substr(colon + 1);
        if (colon > 0) host = hostport.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    }
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) {
        throw std::runtime_error("--listen: want PORT, :PORT or HOST:PORT, got \"" + hostport + "\"");
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* res = nullptr;
    const int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
    if (gai != 0) throw std::runtime_error("--listen " + hostport + ": " + ::gai_strerror(gai));
    std::string err = "--listen " + hostport + ": no address";
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = sys_error("socket");
            continue;
        }
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 1) != 0) {
            err = sys_error("bind " + hostport);
            ::close(fd);
            continue;
        }
        ::freeaddrinfo(res);
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
        char name[INET6_ADDRSTRLEN] = "?";
        uint16_t bound = 0;
        if (ss.ss_family == AF_INET) {
            const auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
            ::inet_ntop(AF_INET, &s4->sin_addr, name, sizeof name);
            bound = ntohs(s4->sin_port);
            return Listener(fd, "", "tcp " + std::string(name) + ":" + std::to_string(bound));
        }
        const auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
        ::inet_ntop(AF_INET6, &s6->sin6_addr, name, sizeof name);
        bound = ntohs(s6->sin6_port);
        return Listener(fd, "", "tcp [" + std::string(name) + "]:" + std::to_string(bound));
    }
    ::freeaddrinfo(res);
    throw std::runtime_error(err);
}

Listener::Listener(Listener&& o) noexcept
    : fd_(o.fd_), unlink_path_(std::move(o.unlink_path_)), where_(std::move(o.where_)) {
    o.fd_ = -1;
    o.unlink_path_.clear();
}

Listener::~Listener() { close(); }

void Listener::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!unlink_path_.empty()) ::unlink(unlink_path_.c_str());
    unlink_path_.clear();
}

int Listener::accept_one(int timeout_ms) {
    if (!wait_readable(fd_, timeout_ms)) {
        throw std::runtime_error("no harness connected to " + where_ + " within " +
                                 std::to_string(timeout_ms / 1000) + " s");
    }
    for (;;) {
        const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
            const int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on Unix sockets
            return fd;
        }
        if (errno != EINTR) throw std::runtime_error(sys_error("accept on " + where_));
    }
}

// ---- Conn ----

Conn::Conn(int fd, int timeout_ms) : fd_(fd), timeout_ms_(timeout_ms), buf_(size_t(1) << 16) {}

Conn::~Conn() {
    if (fd_ >= 0) ::close(fd_);
}

size_t Conn::fill() {
    if (head_ == tail_) head_ = tail_ = 0;
    if (tail_ == buf_.size()) {
        // Keep the unread bytes; make room at the end.
        std::memmove(buf_.data(), buf_.data() + head_, tail_ - head_);
        tail_ -= head_;
        head_ = 0;
    }
    if (!wait_readable(fd_, timeout_ms_)) {
        throw PeerGone("the harness sent nothing for " + std::to_string(timeout_ms_ / 1000) + " s");
    }
    for (;;) {
        const ssize_t r = ::recv(fd_, buf_.data() + tail_, buf_.size() - tail_, 0);
        if (r >= 0) {
            tail_ += size_t(r);
            return size_t(r);
        }
        if (errno != EINTR) throw PeerGone(sys_error("reading from the harness"));
    }
}

bool Conn::read(void* dst, size_t n, bool eof_ok) {
    auto* out = static_cast<uint8_t*>(dst);
    size_t got = 0;
    while (got < n) {
        if (head_ == tail_) {
            // Large reads (frame bodies) go straight to the destination.
            if (n - got >= buf_.size()) {
                if (!wait_readable(fd_, timeout_ms_)) {
                    throw PeerGone("the harness sent nothing for " + std::to_string(timeout_ms_ / 1000) + " s");
                }
                const ssize_t r = ::recv(fd_, out + got, n - got, 0);
                if (r > 0) {
                    got += size_t(r);
                    continue;
                }
                if (r < 0 && errno == EINTR) continue;
                if (r < 0) throw PeerGone(sys_error("reading from the harness"));
                throw PeerGone("the harness closed the connection in the middle of a message");
            }
            if (fill() == 0) {
                if (got == 0 && eof_ok) return false;
                throw PeerGone("the harness closed the connection in the middle of a message");
            }
        }
        const size_t k = std::min(n - got, tail_ - head_);
        std::memcpy(out + got, buf_.data() + head_, k);
        head_ += k;
        got += k;
    }
    return true;
}

void Conn::write(const void* src, size_t n) {
    const auto* p = static_cast<const uint8_t*>(src);
    while (n > 0) {
        const ssize_t r = ::send(fd_, p, n, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw PeerGone(sys_error("writing to the harness"));
        }
        p += r;
        n -= size_t(r);
    }
}

}  // namespace cosim
