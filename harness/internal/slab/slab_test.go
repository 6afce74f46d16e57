package slab

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllocCutsBlocksWithoutOverlap(t *testing.T) {
	var s Slab
	var got [][]byte
	for i := range 1000 {
		b := s.Alloc(1 + i%700)
		require.Len(t, b, 1+i%700)
		assert.Equal(t, len(b), cap(b), "capacity is the length")
		for j := range b {
			b[j] = byte(i)
		}
		got = append(got, b)
	}
	// An append past one slice reallocates instead of writing over the next.
	_ = append(got[0], 0xEE)
	for i, b := range got {
		for _, c := range b {
			require.Equal(t, byte(i), c, "slice %d was overwritten", i)
		}
	}
}

func TestLargeSlicesGetTheirOwnArray(t *testing.T) {
	var s Slab
	small := s.Alloc(10)
	big := s.Alloc(Block/8 + 1)
	assert.Len(t, big, Block/8+1)
	next := s.Alloc(10)
	// The big slice did not use the block: the next small one follows the
	// first in it.
	assert.Equal(t, uintptr(unsafe.Pointer(&small[0]))+10, uintptr(unsafe.Pointer(&next[0])))
}

func TestCopy(t *testing.T) {
	var s Slab
	src := []byte{1, 2, 3}
	c := s.Copy(src)
	src[0] = 9
	assert.Equal(t, []byte{1, 2, 3}, c)
	assert.Empty(t, s.Copy(nil))
}
