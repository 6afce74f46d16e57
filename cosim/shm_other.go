//go:build !linux

package cosim

import (
	"errors"
	"net"
	"os"
)

// Shared memory rings are built on Linux only (memfd); elsewhere a model
// always talks through its socket.

const shmSupported = false

type shm struct{ file *os.File }

func newShm(string) (*shm, error) { return nil, errors.New("shared memory: Linux only") }

func (s *shm) attached() bool { return false }

func (s *shm) release() {}

func newShmConn(conn net.Conn, _ *shm) (net.Conn, error) { return conn, nil }
