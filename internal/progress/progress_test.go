package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestForceDrawsFinalState(t *testing.T) {
	var buf bytes.Buffer
	b := Force(&buf, "fit", 1000)
	for range 1000 {
		b.Add(1)
	}
	b.Done()
	out := buf.String()
	for _, want := range []string{"\rfit [", "100%", "1000/1000", "[" + strings.Repeat("=", barWidth) + "]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q does not contain %q", out, want)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("output %q does not end with a newline", out)
	}
	// Done is idempotent, and Add after Done draws nothing.
	n := buf.Len()
	b.Done()
	b.Add(5)
	if buf.Len() != n {
		t.Errorf("output grew after Done: %q", buf.String()[n:])
	}
}

func TestNewOnNonTerminalIsSilent(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "fit", 10)
	for range 10 {
		b.Add(1)
	}
	b.Done()
	if buf.Len() != 0 {
		t.Errorf("inactive bar wrote %q", buf.String())
	}

	// A regular file is not a terminal either.
	f, err := os.CreateTemp(t.TempDir(), "bar")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b = New(f, "fit", 10)
	b.Add(10)
	b.Done()
	if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
		t.Errorf("inactive bar on a regular file: size %v, err %v", fi.Size(), err)
	}

	// A nil bar is inactive too.
	var nb *Bar
	nb.Add(1)
	nb.Done()
}

func TestConcurrentAdd(t *testing.T) {
	var buf bytes.Buffer
	b := Force(&buf, "par", 8000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				b.Add(1)
			}
		})
	}
	wg.Wait()
	if got := b.n.Load(); got != 8000 {
		t.Fatalf("count = %d, want 8000", got)
	}
	b.Done()
	if out := buf.String(); !strings.Contains(out, "8000/8000") || !strings.Contains(out, "100%") {
		t.Errorf("final line missing from %q", out)
	}
}

func TestThrottle(t *testing.T) {
	var buf bytes.Buffer
	b := Force(&buf, "", 1_000_000)
	for range 1_000_000 {
		b.Add(1)
	}
	// However fast Add is called, redraws are limited to ~10 per second
	// (plus the immediate first one).
	elapsed := time.Since(b.start)
	draws := strings.Count(buf.String(), "\r")
	if limit := int(elapsed/redrawEvery) + 2; draws > limit {
		t.Errorf("%d redraws in %v, want at most %d", draws, elapsed, limit)
	}
}

func TestFormat(t *testing.T) {
	b := Force(&bytes.Buffer{}, "approx", 1000)
	got := b.format(420, 12300*time.Millisecond, false)
	want := "approx [============>                 ]  42% 420/1000  12.3s  eta 17s"
	if got != want {
		t.Errorf("format:\n got %q\nwant %q", got, want)
	}
	if got := b.format(0, 0, false); !strings.Contains(got, "  0% 0/1000") || !strings.Contains(got, "eta ?") {
		t.Errorf("format at zero: %q", got)
	}
	if got := b.format(1000, 75*time.Second, true); strings.Contains(got, "eta") || !strings.Contains(got, "1m15s") {
		t.Errorf("final format: %q", got)
	}
	// More steps than announced: the bar stays full, the count is honest.
	if got := b.format(1200, time.Second, false); !strings.Contains(got, "100% 1200/1000") {
		t.Errorf("overflow format: %q", got)
	}
	unknown := Force(&bytes.Buffer{}, "read", 0)
	if got, want := unknown.format(17, 2*time.Second, false), "read 17  2.0s"; got != want {
		t.Errorf("unknown total: got %q, want %q", got, want)
	}
}

func TestShorterLineBlanksLeftovers(t *testing.T) {
	var buf bytes.Buffer
	b := Force(&buf, "x", 0)
	b.lastLen = 40
	b.mu.Lock()
	b.draw(time.Second, false)
	b.mu.Unlock()
	if line := strings.TrimPrefix(buf.String(), "\r"); len(line) != 40 {
		t.Errorf("line %q has length %d, want 40 (padded)", line, len(line))
	}
}

func TestFormatETA(t *testing.T) {
	for d, want := range map[time.Duration]string{
		17 * time.Second:                      "17s",
		125 * time.Second:                     "2m05s",
		2*time.Hour + 3*time.Minute:           "2h03m",
		1500 * time.Millisecond:               "2s",
		59*time.Second + 600*time.Millisecond: "1m00s",
	} {
		if got := formatETA(d); got != want {
			t.Errorf("formatETA(%v) = %q, want %q", d, got, want)
		}
	}
}
