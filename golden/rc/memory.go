package rc

// Memory is the host memory a node reaches by DMA. The model reads the
// payload of every packet it sends from it (at the moment the packet is
// built, as a NIC would) and writes the payload of every accepted packet
// into it. Implementations must not keep p.
type Memory interface {
	Read(addr uint64, p []byte)
	Write(addr uint64, p []byte)
}

// SparseMemory is a byte-addressable 64-bit memory: 4 KiB pages created on
// first write; bytes never written read as zero. Same semantics as the
// model programs' host memory (sim/memory.h).
type SparseMemory struct {
	pages map[uint64]*[pageBytes]byte
}

const pageBytes = 4096

// NewSparseMemory returns an empty memory.
func NewSparseMemory() *SparseMemory { return &SparseMemory{pages: map[uint64]*[pageBytes]byte{}} }

func (m *SparseMemory) Read(addr uint64, p []byte) {
	for len(p) > 0 {
		off := addr % pageBytes
		n := min(uint64(len(p)), pageBytes-off)
		if pg := m.pages[addr/pageBytes]; pg != nil {
			copy(p[:n], pg[off:])
		} else {
			clear(p[:n])
		}
		p, addr = p[n:], addr+n
	}
}

func (m *SparseMemory) Write(addr uint64, p []byte) {
	for len(p) > 0 {
		off := addr % pageBytes
		n := min(uint64(len(p)), pageBytes-off)
		pg := m.pages[addr/pageBytes]
		if pg == nil {
			pg = new([pageBytes]byte)
			m.pages[addr/pageBytes] = pg
		}
		copy(pg[off:], p[:n])
		p, addr = p[n:], addr+n
	}
}

// Pages returns the number of pages in use.
func (m *SparseMemory) Pages() int { return len(m.pages) }
