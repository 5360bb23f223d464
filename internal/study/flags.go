package study

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// Bind defines on fs one flag for each field of the struct settings points to that carries a `flag:"name"` tag,
// with the text of its `help:"…"` tag as usage and the field's current value as default; untagged struct fields
// (embedded or named) are searched the same way. A field whose address implements flag.Value (such as [GiB]) is
// bound as it is; bool, int, uint64, float64 and string fields as the flag package binds them; []int, []float64
// and []string fields as comma-separated lists, which must not be empty. With an `env:"NAME"` tag, a field still at
// its zero value takes the value of the environment variable NAME, when set, as its default.
func Bind(fs *flag.FlagSet, settings any) error {
	v := reflect.ValueOf(settings)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("study: Bind needs a pointer to a struct, got %T", settings)
	}
	return bindStruct(fs, v.Elem())
}

func bindStruct(fs *flag.FlagSet, v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() {
			continue
		}
		name, ok := f.Tag.Lookup("flag")
		if !ok {
			if fv.Kind() == reflect.Struct {
				if err := bindStruct(fs, fv); err != nil {
					return err
				}
			}
			continue
		}
		if env := f.Tag.Get("env"); env != "" && fv.IsZero() && fv.Kind() == reflect.String {
			fv.SetString(os.Getenv(env))
		}
		if err := bindField(fs, name, f.Tag.Get("help"), fv); err != nil {
			return fmt.Errorf("study: field %s: %w", f.Name, err)
		}
	}
	return nil
}

func bindField(fs *flag.FlagSet, name, help string, fv reflect.Value) error {
	if val, ok := fv.Addr().Interface().(flag.Value); ok {
		fs.Var(val, name, placeholder(help, "GiB"))
		return nil
	}
	switch p := fv.Addr().Interface().(type) {
	case *bool:
		fs.BoolVar(p, name, *p, help)
	case *int:
		fs.IntVar(p, name, *p, help)
	case *uint64:
		fs.Uint64Var(p, name, *p, help)
	case *float64:
		fs.Float64Var(p, name, *p, help)
	case *string:
		fs.StringVar(p, name, *p, help)
	case *[]int:
		fs.Var(listValue[int]{p, strconv.Itoa, strconv.Atoi}, name, placeholder(help, "list"))
	case *[]float64:
		fs.Var(listValue[float64]{p, formatFloat, parseFloat}, name, placeholder(help, "list"))
	case *[]string:
		fs.Var(listValue[string]{p, func(s string) string { return s }, func(s string) (string, error) { return s, nil }},
			name, placeholder(help, "list"))
	default:
		return fmt.Errorf("type %s cannot be a flag", fv.Type())
	}
	return nil
}

// placeholder back-quotes the first word of help that is word, so that the flag package shows it as the flag's
// value name (flag.UnquoteUsage) instead of "value".
func placeholder(help, word string) string { return strings.Replace(help, word, "`"+word+"`", 1) }

// listValue is a comma-separated list flag; Set replaces the whole list.
type listValue[T any] struct {
	p      *[]T
	format func(T) string
	parse  func(string) (T, error)
}

func (l listValue[T]) String() string {
	if l.p == nil {
		return ""
	}
	s := make([]string, len(*l.p))
	for i, x := range *l.p {
		s[i] = l.format(x)
	}
	return strings.Join(s, ",")
}

func (l listValue[T]) Set(s string) error {
	var out []T
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := l.parse(f)
		if err != nil {
			return fmt.Errorf("%q is not a number", f)
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return errors.New("no value given")
	}
	*l.p = out
	return nil
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// GiB is a size in bytes that is read and shown in GiB on the command line.
type GiB int64

// String writes the size in GiB.
func (g *GiB) String() string { return formatFloat(float64(*g) / (1 << 30)) }

// Set reads a non-negative number of GiB.
func (g *GiB) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a non-negative number of GiB", s)
	}
	if v*(1<<30) >= math.MaxInt64 {
		return fmt.Errorf("%q GiB is more than 2^63 bytes", s)
	}
	*g = GiB(math.Round(v * (1 << 30)))
	return nil
}
