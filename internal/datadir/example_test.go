package datadir_test

import (
	"fmt"

	"github.com/rffkit/rff/internal/datadir"
)

// A test or study that needs a real dataset asks for its path and skips (here: says so) when it is absent, so that
// a fresh clone without the data still passes.
func ExamplePath() {
	p, ok := datadir.Path("letter", "letter-recognition.data")
	if !ok {
		fmt.Println("LETTER not available; set RFF_DATA to the data directory")
		return
	}
	fmt.Println("reading", p)
}
