package fifo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The queue against a plain slice, the obviously correct queue, over
// pushes and pops of varying rhythm.
func TestQueueMatchesSlice(t *testing.T) {
	var q Queue[int]
	var ref []int
	next := 0
	for round := range 2000 {
		for range round%7 + 1 {
			q.Push(next)
			ref = append(ref, next)
			next++
		}
		pops := round % 9
		if round%100 == 0 {
			pops = len(ref) // empty it now and then
		}
		for range min(pops, len(ref)) {
			require.Equal(t, ref[0], q.Pop())
			ref = ref[1:]
		}
		if round%13 == 0 && len(ref) >= 2 {
			q.Drop(2)
			ref = ref[2:]
		}
		require.Equal(t, len(ref), q.Len())
		if len(ref) > 0 {
			require.Equal(t, ref, q.Items())
		}
	}
}

// In a steady state (as many pops as pushes) the queue stops allocating
// once its array has grown to fit, and what it moves or pops leaves no
// reference behind in the array.
func TestQueueSteadyState(t *testing.T) {
	var q Queue[*int]
	v := new(int)
	cycle := func() {
		for range 1000 {
			q.Push(v)
		}
		for range 1000 {
			q.Pop()
		}
	}
	for range 1000 {
		q.Push(v)
	}
	for range 100 { // the array grows to twice the longest queue
		cycle()
	}
	assert.Zero(t, testing.AllocsPerRun(100, cycle))
	for q.Len() > 0 {
		q.Pop()
	}
	for i, p := range q.arr[:cap(q.arr)] {
		require.Nil(t, p, "slot %d", i)
	}
}

// A queue that is emptied and refilled, one value at a time, allocates
// only when it first grows, from the zero value on.
func TestRefillAllocatesNothing(t *testing.T) {
	var q Queue[[]byte]
	v := []byte{1}
	allocs := testing.AllocsPerRun(1000, func() {
		q.Push(v)
		q.Pop()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per push and pop", allocs)
	}
}

func TestGatherTakesWhatWaitsUpToMax(t *testing.T) {
	ch := make(chan int, 8)
	for i := range 5 {
		ch <- i
	}
	assert.Equal(t, []int{-1, 0, 1}, Gather([]int{-1}, ch, 3), "up to max")
	assert.Equal(t, []int{2, 3, 4}, Gather(nil, ch, 10), "what waits, no more")
	ch <- 5
	close(ch)
	assert.Equal(t, []int{5}, Gather(nil, ch, 10), "closed")
}
