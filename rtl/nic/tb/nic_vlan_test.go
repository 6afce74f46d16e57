package tb_test

import (
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// vlanCNPPrio is the DUT's CNP priority in TestNICVLAN: the PCP of its
// tagged CNPs.
const vlanCNPPrio = 6

// Half the QPs tagged (IEEE 802.1Q, rtl/nic/README.md "VLAN"), both ways:
// the DUT tags every frame of such a QP with the QP's VID and its priority
// as PCP (its CNPs with CNP_PRIO), and takes the peer's tagged frames, whose
// PCP differs. Both sides post work, frames are lost and CE marked both
// ways; every out0 frame leaves at its golden twin's cycle, byte for byte,
// and counters, completions and memory agree, at 64 and 512 bits.
func TestNICVLAN(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			const nq = 8
			r := startNICNodes(t, width, seed, nq, func(q int, d, p *rc.QPConfig) {
				d.Priority, p.Priority = uint8(q%8), uint8((q+3)%8)
				if q%2 == 0 {
					d.VLAN, p.VLAN = true, true
					d.VID, p.VID = uint16(100+q), uint16(100+q)
				}
				if q == 4 {
					d.VID, p.VID = 0, 0 // priority tagged (VID 0)
				}
			}, func(d, p *rc.NodeConfig) {
				d.CNPPriority = vlanCNPPrio
			})
			r.lossToDUT, r.lossToPeer, r.ceToDUT = 0.03, 0.03, 0.05
			start := r.m.Cycle() + 16
			r.bothWays(start, 30)
			c := r.finish(nicMemRegions(r.nq))
			covered(t, c, "tx_packets", "resp_read_responses", "resp_ack", "tx_cnp", "rx_packets")

			// the DUT's tags, worked out here from the QP configurations
			byQP := map[roce.QPN]int{}
			for q := range nq {
				byQP[r.peerQP[q].QPN] = q
			}
			tagged, cnps := 0, 0
			for _, f := range r.dutNet {
				var fr roce.Frame
				require.NoError(t, fr.Decode(f.Data))
				q := byQP[fr.BTH.DestQP]
				d := r.dutQP[q]
				require.Equal(t, d.VLAN, fr.VLAN, "QP %d tagged", q)
				if !d.VLAN {
					continue
				}
				tagged++
				pcp := d.Priority
				if fr.BTH.OpCode == roce.CNPOpCode {
					pcp = vlanCNPPrio
					cnps++
				}
				require.Equal(t, uint16(pcp)<<13|d.VID, binary.BigEndian.Uint16(f.Data[14:]), "QP %d TCI", q)
			}
			t.Logf("%d of %d DUT frames tagged, %d of them CNPs", tagged, len(r.dutNet), cnps)
			require.NotZero(t, cnps, "tagged CNPs")
		})
	}
}
