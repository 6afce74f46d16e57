package scenario

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The scenarios that ship inside cosim, one TOML file each beside this
// one; the first line of each is its summary.
//
//go:embed default.toml fabric.toml
var builtinFS embed.FS

// Builtin is a scenario that ships inside cosim: `cosim run NAME` runs it.
type Builtin struct {
	Name    string
	Summary string // one line
}

// Builtins lists the built-in scenarios, the default first.
func Builtins() []Builtin {
	entries, _ := fs.ReadDir(builtinFS, ".")
	out := []Builtin{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".toml")
		text, _ := BuiltinTOML(name)
		first, _, _ := bytes.Cut(text, []byte("\n"))
		b := Builtin{Name: name, Summary: strings.TrimSpace(strings.TrimPrefix(string(first), "#"))}
		if name == "default" {
			out = append([]Builtin{b}, out...)
		} else {
			out = append(out, b)
		}
	}
	return out
}

// BuiltinTOML returns the text of built-in scenario name.
func BuiltinTOML(name string) ([]byte, bool) {
	if strings.ContainsAny(name, "/.") {
		return nil, false
	}
	text, err := builtinFS.ReadFile(name + ".toml")
	return text, err == nil
}

// builtinFile is what messages call built-in scenario name, in place of a
// file name.
func builtinFile(name string) string { return "built-in " + name + " scenario" }

// LoadBuiltin parses and checks built-in scenario name.
func LoadBuiltin(name string) (*Scenario, error) {
	text, ok := BuiltinTOML(name)
	if !ok {
		return nil, fmt.Errorf("no built-in scenario %q (%s)", name, builtinNames())
	}
	return Parse(builtinFile(name), text)
}

// Open loads a scenario from a file, or, when arg names no file and is a
// bare name, the built-in scenario of that name: a file always wins, so a
// user's own scenario is never shadowed.
func Open(arg string) (*Scenario, error) {
	if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, "/.") {
		if _, ok := BuiltinTOML(arg); ok {
			return LoadBuiltin(arg)
		}
		return nil, fmt.Errorf("%s: no such file, nor a built-in scenario (%s)", arg, builtinNames())
	}
	return Load(arg)
}

func builtinNames() string {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	return "built-in: " + strings.Join(names, ", ") + "; cosim scenarios lists them"
}
