//go:build !linux

package main

import (
	"context"
	"io"
)

// runTapDemo needs network namespaces, which only Linux has.
func runTapDemo(context.Context, []string, io.Writer, io.Writer) error {
	return fail(exitFailed, "tap-demo: needs Linux (network namespaces and TAP devices)")
}
