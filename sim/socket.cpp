// SPDX-License-Identifier: MIT
// socket.cpp: listening, accepting and buffered I/O (see socket.h).
#include "socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

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

void split_listen(const std::string& hostport, std::string& host, std::string& port) {
    host = "127.0.0.1";
    port = hostport;
    const size_t colon = hostport.rfind(':');
    if (colon != std::string::npos) {
        port = hostport.substr(colon + 1);
        if (colon > 0) host = hostport.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    }
    // At most 5 digits first, so that the value cannot overflow.
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(port) > 65535) {
        throw std::runtime_error("--listen: want PORT, :PORT or HOST:PORT with a port 0 to 65535, got \"" + hostport +
                                 "\"");
    }
}

Listener Listener::tcp(const std::string& hostport) {
    std::string host, port;
    split_listen(hostport, host, port);
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

namespace {

// The layout of the shared memory (cosim/shm_linux.go): two control
// blocks of kRingCtl bytes (tail, head, sleep on separate cache lines),
// the magic, the ring size and the attached mark after them, the rings'
// bytes from kRingHeader on.
constexpr size_t kRingCtl = 256;
constexpr size_t kRingHeader = 4096;
constexpr uint64_t kRingMagic = 0x474e526d69736f63ull;  // "cosimRNG"
constexpr uint32_t kMaxRoomWaitUs = 1000;

uint64_t load(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
void store(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }

}  // namespace

RingMap::RingMap(int fd) {
    const std::string what = "--ring-fd " + std::to_string(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const std::string e = sys_error(what);
        ::close(fd);
        throw std::runtime_error(e);
    }
    const size_t len = size_t(st.st_size);
    if (len <= kRingHeader) {
        ::close(fd);
        throw std::runtime_error(what + ": not the harness's shared rings (" + std::to_string(len) + " bytes)");
    }
    void* m = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const std::string e = sys_error(what + ": mapping it");
    ::close(fd);
    if (m == MAP_FAILED) throw std::runtime_error(e);
    mem_ = static_cast<uint8_t*>(m);
    len_ = len;
    uint64_t magic = 0;
    std::memcpy(&magic, mem_ + 2 * kRingCtl, 8);
    std::memcpy(&size_, mem_ + 2 * kRingCtl + 8, 8);
    if (magic != kRingMagic || size_ == 0 || (size_ & (size_ - 1)) != 0 || kRingHeader + 2 * size_ != len_) {
        ::munmap(mem_, len_);  // the destructor does not run for a constructor that throws
        throw std::runtime_error(what + ": not the harness's shared rings");
    }
    __atomic_store_n(reinterpret_cast<uint32_t*>(mem_ + 2 * kRingCtl + 16), 1u, __ATOMIC_SEQ_CST);
}

RingMap::~RingMap() { ::munmap(mem_, len_); }

Ring RingMap::ring(int i) const {
    uint8_t* ctl = mem_ + size_t(i) * kRingCtl;
    Ring r;
    r.tail = reinterpret_cast<uint64_t*>(ctl);
    r.head = reinterpret_cast<uint64_t*>(ctl + 64);
    r.sleep = reinterpret_cast<uint32_t*>(ctl + 128);
    r.data = mem_ + kRingHeader + size_t(i) * size_;
    r.size = size_;
    return r;
}

Conn::Conn(int fd, int timeout_ms, const RingMap* rings)
    : fd_(fd), timeout_ms_(timeout_ms), buf_(size_t(1) << 16) {
    if (rings == nullptr) return;
    rings_ = true;
    in_ = rings->ring(0);
    out_ = rings->ring(1);
}

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
    if (rings_) return ring_read(out, n, eof_ok);
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

void Conn::write(const Span* spans, size_t n) {
    if (!rings_) return send_all(spans, n);
    for (size_t i = 0; i < n; ++i) ring_put(spans[i].data, spans[i].len);
    ring_publish();
}

// Sends the spans through the socket, as many as a sendmsg takes at a time.
void Conn::send_all(const Span* spans, size_t n) {
    constexpr size_t kMaxIov = 64;
    iovec iov[kMaxIov];
    size_t i = 0;    // first span not fully sent
    size_t off = 0;  // bytes of spans[i] already sent
    while (i < n) {
        size_t k = 0;
        for (size_t j = i; j < n && k < kMaxIov; ++j, ++k) {
            const size_t skip = j == i ? off : 0;
            iov[k].iov_base = const_cast<uint8_t*>(spans[j].data + skip);
            iov[k].iov_len = spans[j].len - skip;
        }
        msghdr m{};
        m.msg_iov = iov;
        m.msg_iovlen = k;
        ssize_t r = ::sendmsg(fd_, &m, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw PeerGone(sys_error("writing to the harness"));
        }
        // Move past what was sent, including spans of no bytes.
        while (i < n && size_t(r) >= spans[i].len - off) {
            r -= ssize_t(spans[i].len - off);
            off = 0;
            ++i;
        }
        off += size_t(r);
    }
}

size_t Conn::write_room() const {
    if (!rings_) return 0;
    return size_t(out_.size - (out_.pos - load(out_.head)));
}

void Conn::release() {
    if (!rings_ || in_.shown == in_.pos) return;
    store(in_.head, in_.pos);
    in_.shown = in_.pos;
}

// Appends n bytes from the harness to v: a frame's bytes go from the ring
// straight into its buffer, with no copy in between.
void Conn::read_append(std::vector<uint8_t>& v, size_t n) {
    if (!rings_) {
        const size_t at = v.size();
        v.resize(at + n);
        read(v.data() + at, n, false);
        return;
    }
    ring_take(n, false, [&v](const uint8_t* p, size_t k) { v.insert(v.end(), p, p + k); });
}

bool Conn::ring_read(uint8_t* dst, size_t n, bool eof_ok) {
    return ring_take(n, eof_ok, [&dst](const uint8_t* p, size_t k) {
        std::memcpy(dst, p, k);
        dst += k;
    });
}

// Hands the next n bytes of the harness's ring to put, in one or two
// pieces per batch available; waits for a doorbell when it is empty. The
// socket's EOF ends the stream once the ring is empty.
template <class Put>
bool Conn::ring_take(size_t n, bool eof_ok, Put&& put) {
    Ring& r = in_;
    size_t got = 0;
    while (got < n) {
        const uint64_t avail = load(r.tail) - r.pos;
        if (avail > 0) {
            const size_t k = size_t(std::min<uint64_t>(avail, n - got));
            const size_t at = size_t(r.pos & (r.size - 1));
            const size_t first = std::min(k, size_t(r.size) - at);
            put(r.data + at, first);
            if (k > first) put(r.data, k - first);
            r.pos += k;
            // Publishing the head costs a cache line the harness's writer
            // reads: do it once per eighth of the ring, and before waiting.
            if (r.pos - r.shown >= r.size / 8) release();
            got += k;
            continue;
        }
        release();
        __atomic_store_n(r.sleep, 1u, __ATOMIC_SEQ_CST);
        if (load(r.tail) != r.pos) {
            __atomic_store_n(r.sleep, 0u, __ATOMIC_SEQ_CST);
            continue;
        }
        if (!wait_readable(fd_, timeout_ms_)) {
            throw PeerGone("the harness sent nothing for " + std::to_string(timeout_ms_ / 1000) + " s");
        }
        const ssize_t b = ::recv(fd_, buf_.data(), buf_.size(), 0);  // doorbells, discarded
        if (b < 0 && errno == EINTR) continue;
        __atomic_store_n(r.sleep, 0u, __ATOMIC_SEQ_CST);
        if (b > 0) continue;
        if (load(r.tail) != r.pos) continue;
        if (b < 0) throw PeerGone(sys_error("reading from the harness"));
        if (got == 0 && eof_ok) return false;
        throw PeerGone("the harness closed the connection in the middle of a message");
    }
    return true;
}

// Copies n bytes into the ring to the harness, publishing them every
// eighth of the ring (so the harness starts on a long reply early) and
// before waiting for room when it is full.
void Conn::ring_put(const uint8_t* src, size_t n) {
    Ring& r = out_;
    uint32_t wait_us = 1;
    while (n > 0) {
        uint64_t room = r.size - (r.pos - r.peer);
        if (room < n) {
            r.peer = load(r.head);
            room = r.size - (r.pos - r.peer);
        }
        if (room == 0) {
            ring_publish();
            wait_room(wait_us);
            continue;
        }
        wait_us = 1;
        const size_t k = size_t(std::min<uint64_t>(room, n));
        const size_t at = size_t(r.pos & (r.size - 1));
        const size_t first = std::min(k, size_t(r.size) - at);
        std::memcpy(r.data + at, src, first);
        std::memcpy(r.data, src + first, k - first);
        r.pos += k;
        src += k;
        n -= k;
        if (r.pos - r.shown >= r.size / 8) ring_publish();
    }
}

// Publishes what ring_put copied, ringing when the harness's reader sleeps.
void Conn::ring_publish() {
    Ring& r = out_;
    if (r.shown == r.pos) return;
    store(r.tail, r.pos);
    r.shown = r.pos;
    if (__atomic_exchange_n(r.sleep, 0u, __ATOMIC_SEQ_CST) == 1u) {
        const uint8_t bell = 1;
        while (::send(fd_, &bell, 1, MSG_NOSIGNAL) < 0) {
            if (errno != EINTR) throw PeerGone(sys_error("writing to the harness"));
        }
    }
}

// The harness does not ring for room: sleep a little longer each time,
// and give up when it hung up.
void Conn::wait_room(uint32_t& wait_us) {
    if (wait_us >= kMaxRoomWaitUs) {
        pollfd p{fd_, POLLRDHUP, 0};
        if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
            throw PeerGone("the harness closed the connection");
        }
    }
    const timespec ts{0, long(wait_us) * 1000};
    ::nanosleep(&ts, nullptr);
    wait_us = std::min(2 * wait_us, kMaxRoomWaitUs);
}

}  // namespace cosim
