package pcapio

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A capture is written once and read later, often gigabytes of it, so
// CreateLinkFile writes it with O_DIRECT where the file system allows:
// whole aligned blocks go from two reused buffers to the device, and the
// page cache is left alone. Through the page cache every megabyte written
// needs a megabyte of fresh pages; in a virtual machine that hands free
// memory back to its host (free page reporting), a fresh page costs a
// fault on the host, and a buffered write ran at 0.4 GB/s against 1.6 GB/s
// direct on the machine this was measured on. The last, partial block is
// written through the page cache (O_DIRECT cleared) at Flush and Close.

// directBlock is the alignment O_DIRECT asks of buffer address, length and
// file offset: the page size covers every logical block size in use.
const directBlock = 4096

// directChunk is how much a directFile gathers before one write.
const directChunk = 1 << 20

// A direct write returns once the device has the data: about 0.6 ms a
// chunk on the machine above. The goroutine that fills the buffer (the
// engine's run loop, or its checker) would wait that long, with the
// model idle, so a full chunk goes to a writer goroutine of the file's
// own while the caller fills a second buffer. Flush and Close wait for it.

// directFile is an os.File opened with O_DIRECT, the aligned buffer being
// filled and the writer goroutine that writes full ones.
type directFile struct {
	f   *os.File
	buf []byte // directChunk bytes, aligned to directBlock
	n   int    // bytes of buf not written yet
	off int64  // file offset of buf[0]

	// The writer, started with the first full chunk. jobs carries a chunk
	// to write, spare the buffer it is done with; at most one chunk is
	// being written while buf fills. Until it hands its buffer back the
	// writer alone touches the file, fellBack and err.
	jobs  chan directJob
	spare chan []byte
	// fellBack: the file system opened the file with O_DIRECT and then
	// refused a direct write, so every write since is plain.
	fellBack bool
	err      error // the first failed write; every later call returns it
}

// directJob is a full chunk: buf[:n] goes to file offset off.
type directJob struct {
	buf []byte
	n   int
	off int64
}

// createOutput creates (or truncates) path for a capture: with O_DIRECT
// when the file system takes it, else as a plain file.
func createOutput(path string) (output, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|unix.O_DIRECT, 0o644)
	if errors.Is(err, unix.EINVAL) { // tmpfs and others refuse O_DIRECT
		return os.Create(path)
	}
	if err != nil {
		return nil, err
	}
	return &directFile{f: f, buf: alignedBuffer(directChunk)}, nil
}

// alignedBuffer returns n bytes starting at a multiple of directBlock. Go's
// heap does not move objects, so the alignment holds.
func alignedBuffer(n int) []byte {
	b := make([]byte, n+directBlock)
	skip := (directBlock - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))%directBlock)) % directBlock
	return b[skip : skip+n : skip+n]
}

func (d *directFile) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		c := copy(d.buf[d.n:], p)
		d.n += c
		p = p[c:]
		written += c
		if d.n == len(d.buf) {
			if err := d.handOff(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// Lend implements lender: n bytes at the end of the buffer, which goes to
// the writer first if they do not fit. A block is never cut between two
// buffers, so one too large for a buffer that starts with a carried-over
// partial block is not lent: the caller writes it.
func (d *directFile) Lend(n int) ([]byte, error) {
	if n > len(d.buf)-directBlock {
		return nil, nil
	}
	if n > len(d.buf)-d.n {
		if err := d.handOff(); err != nil {
			return nil, err
		}
	}
	b := d.buf[d.n : d.n+n : d.n+n]
	d.n += n
	return b, nil
}

// handOff gives the buffer's whole blocks to the writer and takes the
// buffer it wrote before (or a new one, the first time), after that write
// is done; a partial last block moves over to it.
func (d *directFile) handOff() error {
	if d.jobs == nil {
		d.jobs, d.spare = make(chan directJob), make(chan []byte, 1)
		d.spare <- alignedBuffer(directChunk)
		go d.writer()
	}
	next := <-d.spare
	if d.err != nil {
		d.spare <- next
		return d.err
	}
	whole := d.n / directBlock * directBlock
	tail := copy(next, d.buf[whole:d.n])
	d.jobs <- directJob{buf: d.buf, n: whole, off: d.off}
	d.buf, d.off, d.n = next, d.off+int64(whole), tail
	return nil
}

// writer writes the chunks handOff gives it, in order.
func (d *directFile) writer() {
	for j := range d.jobs {
		if d.err == nil {
			d.err = d.writeAt(j.buf[:j.n], j.off)
		}
		d.spare <- j.buf
	}
	close(d.spare)
}

// wait returns once no chunk is being written; the writer is then idle
// and the caller may touch the file and the error.
func (d *directFile) wait() error {
	if d.jobs != nil {
		d.spare <- <-d.spare
	}
	return d.err
}

// writeAt writes whole blocks at off, directly unless the file system
// refused that once: then plainly, from then on.
func (d *directFile) writeAt(p []byte, off int64) error {
	_, err := d.f.WriteAt(p, off)
	if errors.Is(err, unix.EINVAL) && !d.fellBack {
		if err = d.setDirect(false); err != nil {
			return err
		}
		d.fellBack = true
		_, err = d.f.WriteAt(p, off)
	}
	return err
}

// Flush writes what the buffer holds, the whole blocks directly and the
// partial last block through the page cache, once the writer is done, so
// that the file on disk is complete up to here. The partial block moves
// to the start of the buffer, to be written again directly once it fills.
func (d *directFile) Flush() error {
	if err := d.wait(); err != nil {
		return err
	}
	whole := d.n / directBlock * directBlock
	if whole > 0 {
		if d.err = d.writeAt(d.buf[:whole], d.off); d.err != nil {
			return d.err
		}
		d.off += int64(whole)
		d.n = copy(d.buf, d.buf[whole:d.n])
	}
	if d.n == 0 {
		return nil
	}
	if d.fellBack {
		_, d.err = d.f.WriteAt(d.buf[:d.n], d.off)
		return d.err
	}
	if d.err = d.setDirect(false); d.err != nil {
		return d.err
	}
	_, d.err = d.f.WriteAt(d.buf[:d.n], d.off)
	if serr := d.setDirect(true); d.err == nil {
		d.err = serr
	}
	return d.err
}

// Close writes the rest, as Flush, stops the writer and closes the file.
func (d *directFile) Close() error {
	err := d.Flush()
	if d.jobs != nil {
		close(d.jobs)
		for range d.spare { // the writer's last word
		}
	}
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *directFile) setDirect(on bool) error {
	fd := d.f.Fd()
	fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if on {
		fl |= unix.O_DIRECT
	} else {
		fl &^= unix.O_DIRECT
	}
	_, err = unix.FcntlInt(fd, unix.F_SETFL, fl)
	return err
}
