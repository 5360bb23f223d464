package progress_test

import (
	"os"
	"sync"

	"github.com/rffkit/rff/internal/progress"
)

// A bar on stderr for a job split over workers. When stderr is not a
// terminal (a pipe, a file, a CI log) nothing is printed.
func Example() {
	const runs = 200
	bar := progress.New(os.Stderr, "approx", runs)
	defer bar.Done()

	jobs := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range jobs {
				// ... one run of the experiment ...
				bar.Add(1)
			}
		})
	}
	for i := range runs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}
