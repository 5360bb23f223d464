//go:build !unix

package atomicfile

import "errors"

func syscallMkfifo(string) error { return errors.New("no named pipes on this system") }
