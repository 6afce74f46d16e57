package engine

// RDMABuffersFit tells whether an [[rdma]] workload's buffers fit each
// NIC's memory. Exported for the NIC's soak test (rtl/nic/tb), which draws
// only workload shapes the engine runs.
func RDMABuffersFit(qps, outstanding, maxSize int) bool {
	return rdmaBuffers(qps, outstanding, maxSize) <= maxRDMAMemory
}
