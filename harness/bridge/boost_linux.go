//go:build linux

package bridge

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// raiseNice sets every task (thread) of the processes pids to niceness
// nice, and returns what each had: on Linux niceness belongs to a thread,
// and setpriority(PRIO_PROCESS) takes a thread id. On error nothing stays
// changed.
func raiseNice(pids []int, nice int) (map[int]int, error) {
	base := map[int]int{}
	for _, pid := range pids {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			restoreNice(base)
			return nil, err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			// The raw getpriority(2) returns 20 - nice (glibc converts;
			// golang.org/x/sys does not).
			p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
			if err != nil {
				continue // the thread has ended
			}
			if err := unix.Setpriority(unix.PRIO_PROCESS, tid, nice); errors.Is(err, unix.ESRCH) {
				continue
			} else if err != nil {
				restoreNice(base)
				return nil, fmt.Errorf("setting niceness %d on model process %d: %w (needs CAP_SYS_NICE)", nice, pid, err)
			}
			base[tid] = 20 - p
		}
	}
	return base, nil
}

// restoreNice gives the tasks base holds their niceness back.
func restoreNice(base map[int]int) {
	for tid, nice := range base {
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, nice) // an ended thread needs nothing back
	}
}
