package rc

import "github.com/rocesim/cosim/golden/roce"

// RespHighWater returns the most responder jobs QP qpn of n ever had queued
// at once, for the behaviour table's RespHigh check (TestBehaviour, in the
// external test package).
func RespHighWater(n *Node, qpn roce.QPN) int { return n.byQP[qpn].resp.jobHigh }
