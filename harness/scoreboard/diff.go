package scoreboard

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	_ "github.com/rocesim/cosim/golden/pfc"  // registers the PFC layer
	_ "github.com/rocesim/cosim/golden/roce" // registers UDP 4791
)

// FieldDiff is one field that differs between the wanted and the got frame.
type FieldDiff struct {
	Field string `json:"field"` // e.g. "BTH.PSN", "IPv4.TOS", "frame.length"
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func (d FieldDiff) String() string { return fmt.Sprintf("%s want %s got %s", d.Field, d.Want, d.Got) }

// Diff decodes both frames with the golden codecs and lists every field that
// differs, layer by layer, in wire order. Frames with the same bytes give
// nothing.
func Diff(want, got []byte) []FieldDiff {
	if bytes.Equal(want, got) {
		return nil
	}
	wp := gopacket.NewPacket(want, layers.LayerTypeEthernet, gopacket.NoCopy)
	gp := gopacket.NewPacket(got, layers.LayerTypeEthernet, gopacket.NoCopy)
	wl, gl := wp.Layers(), gp.Layers()
	var out []FieldDiff
	if len(want) != len(got) {
		out = append(out, FieldDiff{"frame.length", fmt.Sprint(len(want)), fmt.Sprint(len(got))})
	}
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i].LayerType() != gl[i].LayerType() {
			out = append(out, FieldDiff{fmt.Sprintf("layer[%d]", i), wl[i].LayerType().String(), gl[i].LayerType().String()})
			return out
		}
		name := wl[i].LayerType().String()
		if _, ok := wl[i].(*gopacket.Payload); ok {
			if d, ok := bytesDiff(name, wl[i].LayerContents(), gl[i].LayerContents()); ok {
				out = append(out, d)
			}
			continue
		}
		out = structDiff(out, name, reflect.ValueOf(wl[i]), reflect.ValueOf(gl[i]))
	}
	if len(wl) != len(gl) {
		out = append(out, FieldDiff{"layers", layerNames(wl), layerNames(gl)})
	}
	if len(out) == 0 || (len(out) == 1 && out[0].Field == "frame.length") {
		// Same fields, different bytes: point at the first differing byte.
		if d, ok := bytesDiff("frame", want, got); ok && d.Field != "frame.length" {
			out = append(out, d)
		}
	}
	return out
}

func layerNames(ls []gopacket.Layer) string {
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(l.LayerType().String())
	}
	return b.String()
}

func bytesDiff(name string, w, g []byte) (FieldDiff, bool) {
	n := min(len(w), len(g))
	for i := 0; i < n; i++ {
		if w[i] != g[i] {
			return FieldDiff{fmt.Sprintf("%s[%d]", name, i), fmt.Sprintf("%#02x", w[i]), fmt.Sprintf("%#02x", g[i])}, true
		}
	}
	if len(w) != len(g) {
		return FieldDiff{name + ".length", fmt.Sprint(len(w)), fmt.Sprint(len(g))}, true
	}
	return FieldDiff{}, false
}

var (
	stringer  = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
	layerType = reflect.TypeOf((*gopacket.Layer)(nil)).Elem()
)

// structDiff compares the exported fields of two decoded layers, descending
// into nested header structs (BTH.RETH.VA) and skipping the raw bytes of
// gopacket's BaseLayer, which the fields already explain.
func structDiff(out []FieldDiff, path string, w, g reflect.Value) []FieldDiff {
	for w.Kind() == reflect.Pointer || w.Kind() == reflect.Interface {
		if w.IsNil() || g.IsNil() {
			return out
		}
		w, g = w.Elem(), g.Elem()
	}
	if w.Kind() != reflect.Struct {
		return out
	}
	t := w.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "BaseLayer" || f.Name == "Contents" || f.Name == "Payload" {
			continue
		}
		if f.Type.Kind() == reflect.Struct && reflect.PointerTo(f.Type).Implements(layerType) {
			continue // a header kept inside another (BTH.RETH): the packet lists it as its own layer
		}
		wf, gf := w.Field(i), g.Field(i)
		p := path + "." + f.Name
		switch {
		case f.Type.Kind() == reflect.Struct && !f.Type.Implements(stringer) && !reflect.PointerTo(f.Type).Implements(stringer):
			out = structDiff(out, p, wf, gf)
		case !reflect.DeepEqual(wf.Interface(), gf.Interface()):
			out = append(out, FieldDiff{p, format(wf), format(gf)})
		}
	}
	return out
}

// format shows numbers in hex unless their type says how to print itself.
func format(v reflect.Value) string {
	if v.Type().Implements(stringer) {
		return v.Interface().(fmt.Stringer).String()
	}
	switch v.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		return fmt.Sprintf("%#x", v.Uint())
	case reflect.Slice:
		if b, ok := v.Interface().([]byte); ok {
			return fmt.Sprintf("%x", b)
		}
	}
	return fmt.Sprintf("%v", v.Interface())
}
