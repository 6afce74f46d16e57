package cosim

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The byte stream between the harness and a model it started can go
// through two rings in memory both map (Config.SharedMemory), instead of
// through the socket. A frame then crosses once (a copy into the ring and
// one out of it) and the kernel allocates nothing: through a Unix socket
// every window is copied into socket buffers and out again, and those
// buffers' pages are allocated and freed each time, which on the live
// bridge's stream took about an eighth of both CPUs (perf, both
// processes). The socket stays: it carries the doorbells and it still
// ends when either side dies, so deadlines, kicks and death detection
// work on it as before.
//
// Each ring has one writer and one reader. The writer copies bytes in and
// publishes its position (tail); the reader copies them out and publishes
// its own (head). The model, reading, publishes its head only every
// eighth of the ring, before it waits and before it runs a window: one
// store a message was a shared cache line written twice a frame. A reader
// that finds its ring empty raises its sleep flag, looks once more, and
// blocks reading the socket; a writer that publishes bytes and finds the
// flag raised lowers it and sends one byte, the doorbell. (Flag then
// second look on one side, publish then flag on the other, all
// sequentially consistent: one of the two sees the other.) A writer that
// finds its ring full polls for room, at most every shmMaxPoll: the reader
// never rings for room, and a full ring is rare.
//
// The layout is shared with sim/socket.cpp (Ring and RingMap there):
//
//	0      ring 0 (harness to model): tail u64
//	64                                head u64
//	128                               sleep u32 (the reader sleeps)
//	256    ring 1 (model to harness): tail, head, sleep at the same offsets
//	512    magic u64 ("cosimRNG"), ring size u64 (set here)
//	528    attached u32 (set by the model before it listens)
//	4096   ring 0's bytes, then ring 1's (shmRingSize each)
//
// A model that maps the memory marks it attached before it listens, so
// once the harness could connect it knows which way to talk: a model
// program that knows nothing of rings (a stand-in in a test, another
// project's) leaves the mark clear and talks through the socket.
const (
	shmRingSize = 4 << 20
	shmHeader   = 4096
	shmCtl      = 256
	shmMagic    = 0x474e526d69736f63 // "cosimRNG", little-endian
	shmMaxPoll  = time.Millisecond
)

// shmRing is one direction's ring in the mapping.
type shmRing struct {
	tail, head *uint64
	sleep      *uint32
	data       []byte
	pos        uint64 // this side's own position: tail when writing, head when reading
}

func newShmRing(mem []byte, i int) shmRing {
	ctl := mem[i*shmCtl:]
	return shmRing{
		tail:  (*uint64)(unsafe.Pointer(&ctl[0])),
		head:  (*uint64)(unsafe.Pointer(&ctl[64])),
		sleep: (*uint32)(unsafe.Pointer(&ctl[128])),
		data:  mem[shmHeader+i*shmRingSize : shmHeader+(i+1)*shmRingSize],
	}
}

// read copies what the ring holds, up to len(p), and publishes the new head.
func (r *shmRing) read(p []byte) int {
	n := int(min(atomic.LoadUint64(r.tail)-r.pos, uint64(len(p))))
	if n == 0 {
		return 0
	}
	at := int(r.pos % shmRingSize)
	k := copy(p[:n], r.data[at:])
	copy(p[k:n], r.data)
	r.pos += uint64(n)
	atomic.StoreUint64(r.head, r.pos)
	return n
}

// write copies as much of p as there is room for and publishes the new tail.
func (r *shmRing) write(p []byte) int {
	n := int(min(shmRingSize-(r.pos-atomic.LoadUint64(r.head)), uint64(len(p))))
	if n == 0 {
		return 0
	}
	at := int(r.pos % shmRingSize)
	k := copy(r.data[at:], p[:n])
	copy(r.data, p[k:n])
	r.pos += uint64(n)
	atomic.StoreUint64(r.tail, r.pos)
	return n
}

func (r *shmRing) empty() bool { return atomic.LoadUint64(r.tail) == r.pos }

// shm is the memory file before it is handed to a model: the file goes to
// the child process, the mapping to the shmConn.
type shm struct {
	file *os.File
	mem  []byte
}

// newShm makes the anonymous memory file and maps it.
func newShm(name string) (*shm, error) {
	size := shmHeader + 2*shmRingSize
	fd, err := unix.MemfdCreate("cosim-"+name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("shared memory: %w", err)
	}
	f := os.NewFile(uintptr(fd), "cosim-"+name)
	if err := f.Truncate(int64(size)); err != nil {
		f.Close()
		return nil, fmt.Errorf("shared memory: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("shared memory: %w", err)
	}
	*(*uint64)(unsafe.Pointer(&mem[2*shmCtl])) = shmMagic
	*(*uint64)(unsafe.Pointer(&mem[2*shmCtl+8])) = shmRingSize
	return &shm{file: f, mem: mem}, nil
}

// attached tells whether the model mapped the memory.
func (s *shm) attached() bool {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&s.mem[2*shmCtl+16]))) == 1
}

// release unmaps the memory and closes the file (a failed start, or a
// model that did not attach).
func (s *shm) release() {
	s.file.Close()
	unix.Munmap(s.mem)
}

// shmConn is a net.Conn whose bytes go through the rings; everything else
// (deadlines, Close, addresses) is the socket's.
type shmConn struct {
	net.Conn
	raw syscall.RawConn

	// mu: Read and Write hold it shared while they touch the mapping,
	// Close exclusively to unmap it.
	mu     sync.RWMutex
	mem    []byte
	closed atomic.Bool

	// The deadlines, UnixNano (0: none), also kept here: a Read or Write
	// that finds its ring ready fails as the socket's would once its
	// deadline passed (a model that never stops sending still times out,
	// a kick still stops a write).
	rdl, wdl atomic.Int64

	tx   shmRing // harness to model, written here
	wmu  sync.Mutex
	rx   shmRing // model to harness, read here
	rmu  sync.Mutex
	bell [64]byte // doorbells read, discarded
}

const shmSupported = true

// newShmConn takes over the mapping; the socket closes with it.
func newShmConn(conn net.Conn, s *shm) (net.Conn, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("shared memory: the connection has no file descriptor")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("shared memory: %w", err)
	}
	return &shmConn{Conn: conn, raw: raw, mem: s.mem, tx: newShmRing(s.mem, 0), rx: newShmRing(s.mem, 1)}, nil
}

var doorbell = []byte{1}

func (c *shmConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.mem == nil {
		return 0, net.ErrClosed
	}
	for {
		if passed(&c.rdl) {
			return 0, os.ErrDeadlineExceeded
		}
		if n := c.rx.read(p); n > 0 {
			return n, nil
		}
		atomic.StoreUint32(c.rx.sleep, 1)
		if !c.rx.empty() {
			atomic.StoreUint32(c.rx.sleep, 0)
			continue
		}
		// The socket's deadline bounds the wait; its EOF is the model's end,
		// reported once the ring is empty.
		_, err := c.Conn.Read(c.bell[:])
		atomic.StoreUint32(c.rx.sleep, 0)
		if err != nil {
			if !c.rx.empty() {
				continue
			}
			return 0, err
		}
	}
}

func (c *shmConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.mem == nil {
		return 0, net.ErrClosed
	}
	if passed(&c.wdl) {
		return 0, os.ErrDeadlineExceeded
	}
	done := 0
	wait := time.Microsecond
	for done < len(p) {
		if n := c.tx.write(p[done:]); n > 0 {
			done += n
			wait = time.Microsecond
			if atomic.SwapUint32(c.tx.sleep, 0) == 1 {
				if _, err := c.Conn.Write(doorbell); err != nil {
					return done, err
				}
			}
			continue
		}
		if err := c.waitRoom(wait); err != nil {
			return done, err
		}
		wait = min(2*wait, shmMaxPoll)
	}
	return done, nil
}

// waitRoom sleeps d before the writer looks for room again, unless the
// write deadline passed, the connection was closed or the model hung up.
func (c *shmConn) waitRoom(d time.Duration) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	if passed(&c.wdl) {
		return os.ErrDeadlineExceeded
	}
	if d >= shmMaxPoll && c.hungUp() {
		return syscall.EPIPE
	}
	time.Sleep(d)
	return nil
}

// hungUp tells whether the model closed its end of the socket.
func (c *shmConn) hungUp() bool {
	gone := false
	c.raw.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if n, err := unix.Poll(pfd, 0); err == nil && n > 0 {
			gone = pfd[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
		}
	})
	return gone
}

func (c *shmConn) SetDeadline(t time.Time) error {
	setDeadline(&c.rdl, t)
	setDeadline(&c.wdl, t)
	return c.Conn.SetDeadline(t)
}

func (c *shmConn) SetReadDeadline(t time.Time) error {
	setDeadline(&c.rdl, t)
	return c.Conn.SetReadDeadline(t)
}

func (c *shmConn) SetWriteDeadline(t time.Time) error {
	setDeadline(&c.wdl, t)
	return c.Conn.SetWriteDeadline(t)
}

func setDeadline(d *atomic.Int64, t time.Time) {
	if t.IsZero() {
		d.Store(0)
	} else {
		d.Store(t.UnixNano())
	}
}

// passed tells whether the deadline d is set and past.
func passed(d *atomic.Int64) bool {
	dl := d.Load()
	return dl != 0 && time.Now().UnixNano() >= dl
}

// Close closes the socket, which ends a Read blocked on it, then waits for
// Read and Write to leave the mapping and unmaps it.
func (c *shmConn) Close() error {
	c.closed.Store(true)
	err := c.Conn.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem != nil {
		unix.Munmap(c.mem)
		c.mem = nil
	}
	return err
}

var _ io.ReadWriteCloser = (*shmConn)(nil)
