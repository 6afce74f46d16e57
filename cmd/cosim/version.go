package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	cosimproto "github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/engine"
)

func runVersion(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return fail(exitBadInput, "version: unexpected argument %q", args[0])
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(bi, ok))
	return nil
}

// versionText says which build this is: the module version and commit
// the Go tool stamped, and the versions of the formats other tools read.
func versionText(bi *debug.BuildInfo, ok bool) string {
	module, commit := "unknown (no build information)", "unknown (the build carries no VCS stamp)"
	if ok && bi != nil {
		if bi.Main.Version != "" {
			module = bi.Main.Version
		}
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			commit = rev
			if modified == "true" {
				commit += " (modified)"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cosim %s\n", module)
	fmt.Fprintf(&b, "commit %s\n", commit)
	fmt.Fprintf(&b, "summary.json format %d\n", engine.SummaryFormat)
	fmt.Fprintf(&b, "socket protocol %d\n", cosimproto.ProtoVersion)
	return b.String()
}
