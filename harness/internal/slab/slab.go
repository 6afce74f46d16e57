// Package slab cuts many small byte slices out of a few large blocks. A
// campaign draws a million frames or more, and a capture holds as many
// packets: cut from 256 KiB blocks, each costs a slice expression instead
// of a malloc, and the garbage collector marks one block for hundreds of
// them.
package slab

// Block is the size of the blocks slices are cut from.
const Block = 256 << 10

// Slab hands out slices cut from its current block. The zero value is
// ready to use. A block stays alive while any slice cut from it does.
type Slab struct {
	free []byte // the rest of the current block
}

// Alloc returns n zeroed bytes whose capacity is their length, so that an
// append by the caller cannot reach the next slice. A slice larger than
// an eighth of a block gets an allocation of its own, so that no block is
// left mostly unused.
func (s *Slab) Alloc(n int) []byte {
	if n > Block/8 {
		return make([]byte, n)
	}
	if len(s.free) < n {
		s.free = make([]byte, Block)
	}
	b := s.free[:n:n]
	s.free = s.free[n:]
	return b
}

// Copy returns a copy of data cut from the slab, as Alloc.
func (s *Slab) Copy(data []byte) []byte {
	b := s.Alloc(len(data))
	copy(b, data)
	return b
}
