package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
// TestSummaryLayoutOnlyGrows holds summary.json to its rule: within a
// format, fields are only ever added. Every field of
// testdata/summary_layout.txt (the layout of the current format, one
// "path type" per line) must still be there with its type; a field
// removed, renamed or retyped needs a new engine.SummaryFormat and a new
// layout file. Added fields go into the file with -update, and into the
// field list of cmd/cosim/README.md.
func TestSummaryLayoutOnlyGrows(t *testing.T) {
	var got []string
	jsonLayout(&got, "", reflect.TypeOf(engine.Summary{}))
	slices.Sort(got)
	path := filepath.Join("testdata", "summary_layout.txt")
	head := fmt.Sprintf("# summary.json format %d: path type, one field per line (TestSummaryLayoutOnlyGrows)", engine.SummaryFormat)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(head+"\n"+strings.Join(got, "\n")+"\n"), 0o644))
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Equal(t, head, lines[0], "%s is the layout of another format: a new format needs its own layout (-update)", path)
	pinned := lines[1:]
	var gone, added []string
	for _, l := range pinned {
		if !slices.Contains(got, l) {
			gone = append(gone, l)
		}
	}
	for _, l := range got {
		if !slices.Contains(pinned, l) {
			added = append(added, l)
		}
	}
	assert.Empty(t, gone, "fields removed, renamed or retyped: that breaks summary.json format %d; bump engine.SummaryFormat and rewrite %s with -update", engine.SummaryFormat, path)
	assert.Empty(t, added, "fields added: rewrite %s with -update and list them in cmd/cosim/README.md", path)
}

// jsonLayout lists t's fields as encoding/json writes them, one "path
// type" each: "links[].matched int", "counters{}{}.dut uint64".
func jsonLayout(out *[]string, path string, t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer:
		jsonLayout(out, path, t.Elem())
	case reflect.Slice, reflect.Array:
		jsonLayout(out, path+"[]", t.Elem())
	case reflect.Map:
		jsonLayout(out, path+"{}", t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				jsonLayout(out, path, f.Type) // encoding/json lifts its fields
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			jsonLayout(out, p, f.Type)
		}
	default:
		*out = append(*out, path+" "+t.Kind().String())
	}
}
