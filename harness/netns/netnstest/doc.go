// Package netnstest holds test helpers for code that creates network
// namespaces and links: skipping without privileges (failing instead under
// CI, where these tests must run) and checking that a test leaves no link
// or namespace behind.
//
// The package builds only on Linux.
package netnstest
