// Package fifo is a first-in, first-out queue on a slice that reuses its
// array: once pops have freed the front half, a push moves the queue back
// to the start instead of growing a new array. The harness keeps a queue
// per port and stream (frames sent and not yet accepted, frames expected
// and not yet seen) through which every frame passes, and a plain slice
// popped from the front reallocated and copied about once a window.
package fifo

// Queue is a FIFO of T. The zero value is an empty queue.
type Queue[T any] struct {
	items []T // the queued values, a window of arr
	arr   []T // the array items lives in, from its start
}

// Len returns how many values are queued.
func (q *Queue[T]) Len() int { return len(q.items) }

// Items returns the queued values, oldest first. The slice aliases the
// queue: it is valid until the next Push or Pop.
func (q *Queue[T]) Items() []T { return q.items }

// Push adds v at the back.
func (q *Queue[T]) Push(v T) {
	if len(q.items) == cap(q.items) {
		if len(q.items) < cap(q.arr) && 2*len(q.items) <= cap(q.arr) {
			// Pops freed at least half the array: move back to its start
			// and clear what is left behind, so nothing stays reachable.
			// (Not when the array is empty: a queue of the zero value
			// would then append to nil and allocate on every refill.)
			all := q.arr[:cap(q.arr)]
			n := copy(all, q.items)
			clear(all[n:])
			q.items = all[:n]
		} else {
			// Double the whole array (append would size the new one
			// from the window, which can shrink it).
			arr := make([]T, len(q.items), max(8, 2*cap(q.arr)))
			copy(arr, q.items)
			q.items, q.arr = arr, arr[:0]
		}
	}
	q.items = append(q.items, v)
}

// Pop removes and returns the value at the front. It panics on an empty
// queue.
func (q *Queue[T]) Pop() T {
	v := q.items[0]
	var zero T
	q.items[0] = zero // drop the reference: the array outlives the value
	q.items = q.items[1:]
	return v
}

// Drop removes the n values at the front (n <= Len).
func (q *Queue[T]) Drop(n int) {
	clear(q.items[:n])
	q.items = q.items[n:]
}

// Gather appends to batch the values ch holds now, without waiting for
// more, until batch has max values or ch is empty or closed: a writer
// that hands its device everything waiting at once.
func Gather[T any](batch []T, ch <-chan T, max int) []T {
	for len(batch) < max {
		select {
		case v, ok := <-ch:
			if !ok {
				return batch
			}
			batch = append(batch, v)
		default:
			return batch
		}
	}
	return batch
}
