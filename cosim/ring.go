package cosim

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// maxLineLen bounds one kept line; the rest of a longer line is dropped.
const maxLineLen = 1024

// lineRing is an io.Writer that keeps the last n lines written to it (a
// model's stdout and stderr), optionally copying every byte to tee.
type lineRing struct {
	mu    sync.Mutex
	lines []string // circular
	next  int      // slot for the next line
	full  bool
	part  []byte // the line being written, at most maxLineLen bytes
	cut   bool   // part lost bytes
	tee   io.Writer
}

func newLineRing(n int, tee io.Writer) *lineRing {
	return &lineRing{lines: make([]string, n), tee: tee}
}

func (r *lineRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tee != nil {
		r.tee.Write(p) // best effort: a failing log must not stop the model
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.addPart(p)
			break
		}
		r.addPart(p[:i])
		r.push()
		p = p[i+1:]
	}
	return n, nil
}

func (r *lineRing) addPart(p []byte) {
	room := maxLineLen - len(r.part)
	if len(p) > room {
		p, r.cut = p[:room], true
	}
	r.part = append(r.part, p...)
}

func (r *lineRing) line() string {
	s := strings.TrimRight(string(r.part), "\r")
	if r.cut {
		s += " [...]"
	}
	return s
}

func (r *lineRing) push() {
	r.lines[r.next] = r.line()
	r.part, r.cut = r.part[:0], false
	r.next++
	if r.next == len(r.lines) {
		r.next, r.full = 0, true
	}
}

// Lines returns the kept lines, oldest first, and a last line still
// without its newline. The slice is fresh.
func (r *lineRing) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.full {
		out = append(out, r.lines[r.next:]...)
	}
	out = append(out, r.lines[:r.next]...)
	if len(r.part) > 0 || r.cut {
		out = append(out, r.line())
	}
	return out
}
