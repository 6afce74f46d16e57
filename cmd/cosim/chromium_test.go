package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/oracle"
)

// browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte, the
// browser reading fd 3 and writing fd 4), so a test sees the page's
// console and uncaught exceptions as the browser reports them.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	to      *os.File
	from    *bufio.Reader
	id      int
	session string
	// Console holds every console message and uncaught exception, as
	// "level: text".
	Console []string
	loaded  bool
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := oracle.Require(t, "chromium", "--version")
	toR, toW, err := os.Pipe()
	require.NoError(t, err)
	fromR, fromW, err := os.Pipe()
	require.NoError(t, err)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(),
		"--remote-debugging-pipe", "--window-size=1100,2000", "about:blank")
	cmd.ExtraFiles = []*os.File{toR, fromW} // fds 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	toR.Close()
	fromW.Close()
	b := &browser{t: t, cmd: cmd, to: toW, from: bufio.NewReader(fromR)}
	t.Cleanup(func() {
		toW.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	target := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	attached := b.call("", "Target.attachToTarget", map[string]any{"targetId": target["targetId"], "flatten": true})
	b.session = attached["sessionId"].(string)
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		b.call(b.session, m, nil)
	}
	return b
}

// call sends one command and returns its result, noting the events that
// arrive meanwhile.
func (b *browser) call(session, method string, params any) map[string]any {
	b.t.Helper()
	b.id++
	msg := map[string]any{"id": b.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	require.NoError(b.t, err)
	_, err = b.to.Write(append(data, 0))
	require.NoError(b.t, err)
	for {
		reply := b.next()
		if id, ok := reply["id"].(float64); ok && int(id) == b.id {
			if e, ok := reply["error"]; ok {
				b.t.Fatalf("%s: %v", method, e)
			}
			res, _ := reply["result"].(map[string]any)
			return res
		}
	}
}

// next reads one message, keeping the events the test asks about.
func (b *browser) next() map[string]any {
	b.t.Helper()
	line, err := b.from.ReadBytes(0)
	require.NoError(b.t, err, "the browser closed its pipe")
	var m map[string]any
	require.NoError(b.t, json.Unmarshal(line[:len(line)-1], &m))
	params, _ := m["params"].(map[string]any)
	switch m["method"] {
	case "Runtime.consoleAPICalled":
		var parts []string
		for _, a := range params["args"].([]any) {
			parts = append(parts, fmt.Sprint(a.(map[string]any)["value"]))
		}
		b.Console = append(b.Console, fmt.Sprintf("%v: %s", params["type"], strings.Join(parts, " ")))
	case "Runtime.exceptionThrown":
		d := params["exceptionDetails"].(map[string]any)
		b.Console = append(b.Console, fmt.Sprintf("exception: %v %v", d["text"], d["exception"]))
	case "Log.entryAdded":
		e := params["entry"].(map[string]any)
		b.Console = append(b.Console, fmt.Sprintf("%v: %v", e["level"], e["text"]))
	case "Page.loadEventFired":
		b.loaded = true
	}
	return m
}

// open loads url and waits for its load event.
func (b *browser) open(url string) {
	b.t.Helper()
	b.loaded = false
	b.call(b.session, "Page.navigate", map[string]any{"url": url})
	deadline := time.Now().Add(time.Minute)
	for !b.loaded {
		require.True(b.t, time.Now().Before(deadline), "%s did not load", url)
		b.next()
	}
}

// eval evaluates a JavaScript expression in the page and returns its value.
func (b *browser) eval(expr string) any {
	b.t.Helper()
	res := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if ex, ok := res["exceptionDetails"]; ok {
		b.t.Fatalf("%s: %v", expr, ex)
	}
	return res["result"].(map[string]any)["value"]
}

// screenshot returns a PNG of the whole page.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	res := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true})
	var png []byte
	require.NoError(b.t, json.Unmarshal([]byte(`"`+res["data"].(string)+`"`), &png))
	return png
}
