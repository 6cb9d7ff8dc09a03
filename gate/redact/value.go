package redact

import "reflect"

// Value scrubs, in place, every string reachable from v (a pointer):
// struct fields, slice and array elements, pointers, interfaces, and the
// keys and values of maps (a map[string]string value under a secret-looking
// key is hidden whole, as NAME=value is in text). Each distinct string is
// scrubbed once, so a document built of repeated ids and labels costs its
// distinct text, not its size: this is the scrubbing of a document where it
// is produced, before it is rendered, instead of the rendered bytes (a
// JSON comparison of 200 workloads is megabytes of numbers and structure
// that can hold no secret). Unexported fields are left alone.
func (s *Scrubber) Value(v any) {
	w := valueWalker{s: s, seen: map[string]string{}}
	w.walk(reflect.ValueOf(v))
}

type valueWalker struct {
	s    *Scrubber
	seen map[string]string
}

func (w *valueWalker) str(in string) string {
	if out, ok := w.seen[in]; ok {
		return out
	}
	out := w.s.String(in)
	w.seen[in] = out
	return out
}

func (w *valueWalker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() == reflect.String {
				if v.CanSet() {
					v.Set(reflect.ValueOf(w.str(e.String())).Convert(e.Type()))
				}
				return
			}
			w.walk(e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(w.str(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				w.walk(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		w.walkMap(v)
	}
}

// walkMap scrubs a map's string keys and its values. Values are not
// addressable, so each entry is read, scrubbed as a copy and stored back.
func (w *valueWalker) walkMap(m reflect.Value) {
	if m.IsNil() {
		return
	}
	kt, vt := m.Type().Key(), m.Type().Elem()
	type entry struct{ k, v reflect.Value }
	var entries []entry
	iter := m.MapRange()
	for iter.Next() {
		entries = append(entries, entry{iter.Key(), iter.Value()})
	}
	for _, e := range entries {
		k := e.k
		if kt.Kind() == reflect.String {
			k = reflect.ValueOf(w.str(e.k.String())).Convert(kt)
		}
		if k.Equal(e.k) && !mayHoldStrings(vt) {
			continue // numbers under an unchanged key: nothing to scrub
		}
		nv := reflect.New(vt).Elem()
		nv.Set(e.v)
		if vt.Kind() == reflect.String && kt.Kind() == reflect.String && Name(e.k.String()) && nv.String() != "" {
			nv.SetString(Placeholder)
		} else {
			w.walk(nv)
		}
		if !k.Equal(e.k) {
			m.SetMapIndex(e.k, reflect.Value{})
		}
		m.SetMapIndex(k, nv)
	}
}

// mayHoldStrings reports whether a value of type t can reach a string.
func mayHoldStrings(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}
