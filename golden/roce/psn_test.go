package roce_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
)

const (
	rtPSNMod  = 1 << 24
	rtPSNHalf = 1 << 23
)

// rtAfter is the definition of IBA 9.7 (PSNs compared modulo 2^24), written the slow
// way: a is after b when (a-b) mod 2^24 is in [1, 2^23).
func rtAfter(a, b roce.PSN) bool {
	d := ((int64(a)-int64(b))%rtPSNMod + rtPSNMod) % rtPSNMod
	return d >= 1 && d < rtPSNHalf
}

// rtDiff is the signed distance a-b folded into [-2^23, 2^23), slowly.
func rtDiff(a, b roce.PSN) int {
	d := ((int64(a)-int64(b))%rtPSNMod + rtPSNMod) % rtPSNMod
	if d >= rtPSNHalf {
		d -= rtPSNMod
	}
	return int(d)
}

func TestPSNAdd(t *testing.T) {
	cases := []struct {
		p    roce.PSN
		n    int
		want roce.PSN
	}{
		{0, 0, 0},
		{0, 1, 1},
		{0x000012, 0x10, 0x000022},
		{0xFFFFFF, 1, 0},
		{0xFFFFFE, 3, 0x000001},
		{0xFFFFFF, rtPSNMod, 0xFFFFFF},
		{0, -1, 0xFFFFFF},
		{0x000001, -3, 0xFFFFFE},
		{0x000005, -5, 0},
		{0x800000, rtPSNHalf, 0},
		{0x123456, -rtPSNMod, 0x123456},
		{0x123456, 3 * rtPSNMod, 0x123456},
		{0x123456, -5*rtPSNMod - 0x123457, 0xFFFFFF},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.p.Add(c.n), "%v + %d", c.p, c.n)
	}
	r := rand.New(rand.NewPCG(24, 24))
	for range 10000 {
		p := roce.PSN(r.Uint32() & roce.PSNMask)
		n := int(r.Int32())
		want := roce.PSN(((int64(p)+int64(n))%rtPSNMod + rtPSNMod) % rtPSNMod)
		require.Equal(t, want, p.Add(n), "%v + %d", p, n)
		require.Equal(t, p, p.Add(n).Add(-n))
	}
}

func TestPSNDiffLessAcrossWrap(t *testing.T) {
	a, b := roce.PSN(0xFFFFFE), roce.PSN(0x000001)
	assert.Equal(t, -3, a.Diff(b))
	assert.Equal(t, 3, b.Diff(a))
	assert.True(t, a.Less(b), "0xFFFFFE is before 0x000001")
	assert.False(t, b.Less(a))
	assert.False(t, a.Less(a))
	assert.Equal(t, 0, a.Diff(a))

	// The half-range boundary.
	assert.Equal(t, rtPSNHalf-1, roce.PSN(rtPSNHalf-1).Diff(0))
	assert.Equal(t, -rtPSNHalf+1, roce.PSN(0).Diff(rtPSNHalf-1))
	assert.Equal(t, -rtPSNHalf, roce.PSN(rtPSNHalf).Diff(0), "Diff is in [-2^23, 2^23)")
	assert.Equal(t, -rtPSNHalf, roce.PSN(0).Diff(rtPSNHalf))
	assert.Equal(t, -rtPSNHalf+1, roce.PSN(rtPSNHalf+1).Diff(0))
	assert.True(t, roce.PSN(0).Less(rtPSNHalf-1))
	assert.False(t, roce.PSN(rtPSNHalf-1).Less(0))
	assert.True(t, roce.PSN(rtPSNHalf+1).Less(0), "2^23+1 is before 0: 0 is 2^23-1 after it")
	assert.False(t, roce.PSN(0).Less(rtPSNHalf+1))
	assert.True(t, roce.PSN(0xFFFFFF).Less(rtPSNHalf-2))
}

// TestPSNProperties checks Diff and Less against the slow definitions on
// random pairs and on pairs around 0, the wrap and the half range.
func TestPSNProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(0x800000, 1))
	var pairs [][2]roce.PSN
	for range 20000 {
		pairs = append(pairs, [2]roce.PSN{roce.PSN(r.Uint32() & roce.PSNMask), roce.PSN(r.Uint32() & roce.PSNMask)})
	}
	for _, base := range []roce.PSN{0, 1, 0x7FFFFF, 0x800000, 0xFFFFFE, 0xFFFFFF, roce.PSN(r.Uint32() & roce.PSNMask)} {
		for _, d := range []int{0, 1, 2, rtPSNHalf - 2, rtPSNHalf - 1, rtPSNHalf + 1, rtPSNHalf + 2, rtPSNMod - 2, rtPSNMod - 1} {
			pairs = append(pairs, [2]roce.PSN{base, base.Add(d)}, [2]roce.PSN{base.Add(d), base})
		}
	}
	for _, pq := range pairs {
		p, q := pq[0], pq[1]
		require.Equal(t, rtDiff(p, q), p.Diff(q), "%v.Diff(%v)", p, q)
		require.Equal(t, rtAfter(q, p), p.Less(q), "%v.Less(%v)", p, q)
		require.False(t, p.Less(q) && q.Less(p), "%v, %v", p, q)
		require.Equal(t, p, q.Add(p.Diff(q)))
	}
}

// TestPSNLessHalfRange: two PSNs exactly 2^23 apart are, by the definition,
// neither after the other; Less must not claim each is before the other.
func TestPSNLessHalfRange(t *testing.T) {
	for _, p := range []roce.PSN{0, 1, 0x123456, 0xFFFFFF} {
		q := p.Add(rtPSNHalf)
		require.False(t, rtAfter(p, q) || rtAfter(q, p))
		if p.Less(q) || q.Less(p) {
			t.Errorf("psn.go PSN.Less: %v.Less(%v) = %v and %v.Less(%v) = %v at distance 2^23",
				p, q, p.Less(q), q, p, q.Less(p))
		}
	}
}

func TestPSNInWindow(t *testing.T) {
	cases := []struct {
		p, start roce.PSN
		size     int
		want     bool
	}{
		{5, 5, 1, true},
		{5, 5, 0, false},
		{6, 5, 1, false},
		{4, 5, 10, false},
		{14, 5, 10, true},
		{15, 5, 10, false},
		{0xFFFFFF, 0xFFFFFE, 4, true},
		{0x000000, 0xFFFFFE, 4, true},
		{0x000001, 0xFFFFFE, 4, true},
		{0x000002, 0xFFFFFE, 4, false},
		{0xFFFFFD, 0xFFFFFE, 4, false},
		{0x000000, 0xFFFFFE, -1, false},
		{rtPSNHalf - 1, 0, rtPSNHalf, true},
		{rtPSNHalf, 0, rtPSNHalf, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.p.InWindow(c.start, c.size), "%v in [%v, +%d)", c.p, c.start, c.size)
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 10000 {
		start := roce.PSN(r.Uint32() & roce.PSNMask)
		size := r.IntN(rtPSNHalf)
		p := roce.PSN(r.Uint32() & roce.PSNMask)
		if r.IntN(2) == 0 {
			p = start.Add(r.IntN(2*size+2) - size/2)
		}
		d := ((int64(p)-int64(start))%rtPSNMod + rtPSNMod) % rtPSNMod
		require.Equal(t, d < int64(size), p.InWindow(start, size), "%v in [%v, +%d)", p, start, size)
	}
}

func TestPSNString(t *testing.T) {
	assert.Equal(t, "0x000012", roce.PSN(0x12).String())
	assert.Equal(t, "0x000000", roce.PSN(0).String())
	assert.Equal(t, "0xffffff", roce.PSN(0xFFFFFF).String())
	assert.Equal(t, "0x9dbe5d", roce.PSN(0x9dbe5d).String())
	assert.Equal(t, "0x000012", roce.QPN(0x12).String())
	assert.Equal(t, "0xabcdef", roce.QPN(0xABCDEF).String())
	assert.Equal(t, uint32(1<<24-1), uint32(roce.PSNMask))
}
