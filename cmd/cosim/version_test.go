package main

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	cosimproto "github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/engine"
)

// `cosim version` and `cosim --version` print the same four lines, the
// socket protocol's version among them; extra arguments are bad usage.
func TestVersionCommand(t *testing.T) {
	code, want, stderr := cosim(t, "version")
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	ls := lines(want)
	if assert.Len(t, ls, 4, want) {
		assert.True(t, strings.HasPrefix(ls[0], "cosim "), ls[0])
		assert.True(t, strings.HasPrefix(ls[1], "commit "), ls[1])
		assert.Equal(t, fmt.Sprintf("summary.json format %d", engine.SummaryFormat), ls[2])
		assert.Equal(t, fmt.Sprintf("socket protocol %d", cosimproto.ProtoVersion), ls[3])
	}
	code, got, _ := cosim(t, "--version")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, got)

	code, got, stderr = cosim(t, "version", "extra")
	assert.Equal(t, 2, code)
	assert.Empty(t, got)
	assert.Contains(t, stderr, `cosim: version: unexpected argument "extra"`)
}

// The module version and the commit come from the build information; a
// binary without the VCS stamp (go test, go run, -buildvcs=false) says so.
func TestVersionText(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, fmt.Sprintf("cosim v1.2.3\ncommit 0123abcd (modified)\nsummary.json format %d\nsocket protocol %d\n",
		engine.SummaryFormat, cosimproto.ProtoVersion), versionText(bi, true))

	bi.Settings[1].Value = "false"
	assert.Contains(t, versionText(bi, true), "commit 0123abcd\n")

	assert.True(t, strings.HasPrefix(versionText(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true),
		"cosim (devel)\ncommit unknown (the build carries no VCS stamp)\n"))
	assert.True(t, strings.HasPrefix(versionText(nil, false), "cosim unknown (no build information)\ncommit unknown"))
}

// engine.SummaryFormat must change with summary.json's layout: this pins the
// layout of engine.Summary (JSON names and types, recursively). When it
// fails, bump engine.SummaryFormat and pin the new fingerprint.
func TestSummaryFormatPinned(t *testing.T) {
	var b strings.Builder
	jsonLayout(&b, reflect.TypeOf(engine.Summary{}), map[reflect.Type]bool{})
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(b.String())))[:16]
	assert.Equal(t, map[int]string{2: "4f840a1395e04abb"}, map[int]string{engine.SummaryFormat: sum},
		"engine.Summary changed (summary.json is now %s): bump engine.SummaryFormat and pin the new fingerprint", b.String())
}

// jsonLayout writes t as encoding/json sees it: field names, not Go names.
func jsonLayout(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Pointer:
		jsonLayout(b, t.Elem(), seen)
	case reflect.Slice, reflect.Array:
		b.WriteString("[")
		jsonLayout(b, t.Elem(), seen)
		b.WriteString("]")
	case reflect.Map:
		b.WriteString("{" + t.Key().Kind().String() + ":")
		jsonLayout(b, t.Elem(), seen)
		b.WriteString("}")
	case reflect.Struct:
		if seen[t] {
			b.WriteString(t.Name())
			return
		}
		seen[t] = true
		b.WriteString("{")
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			b.WriteString(name + ":")
			jsonLayout(b, f.Type, seen)
			b.WriteString(",")
		}
		b.WriteString("}")
	default:
		b.WriteString(t.Kind().String())
	}
}
