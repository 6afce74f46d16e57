//go:build linux

package netns

import (
	"os"
	"syscall"
)

func inode(st os.FileInfo) uint64 { return st.Sys().(*syscall.Stat_t).Ino }
