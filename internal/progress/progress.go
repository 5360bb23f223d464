package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// barWidth is the number of cells between the brackets.
	barWidth = 30
	// redrawEvery is the minimum interval between two redraws triggered by Add.
	redrawEvery = 100 * time.Millisecond
)

// Bar is a progress bar for a job of a known number of steps. The zero value
// and a nil *Bar are inactive: all methods do nothing. Create bars with [New]
// or [Force].
type Bar struct {
	w      io.Writer
	label  string
	total  int64
	active bool
	start  time.Time

	n        atomic.Int64 // steps done so far
	lastDraw atomic.Int64 // nanoseconds since start of the last redraw
	done     atomic.Bool

	mu      sync.Mutex // serializes writes to w and guards lastLen
	lastLen int        // length of the last line drawn, to blank leftovers
}

// New returns a bar for a job of total steps, labelled label, drawn on w.
// The bar is active only when w is an *os.File that is a terminal (a
// character device); otherwise every method is a cheap no-op.
// A total ≤ 0 means the number of steps is unknown: only the count and the
// elapsed time are shown.
func New(w io.Writer, label string, total int) *Bar {
	return newBar(w, label, total, isTerminal(w))
}

// Force is like [New] but the bar is always active, whatever w is.
// It is meant for tests and for callers that have already decided to draw.
func Force(w io.Writer, label string, total int) *Bar {
	return newBar(w, label, total, w != nil)
}

func newBar(w io.Writer, label string, total int, active bool) *Bar {
	b := &Bar{w: w, label: label, total: int64(total), active: active}
	if active {
		b.start = time.Now()
		// Allow the first Add to draw immediately.
		b.lastDraw.Store(-int64(redrawEvery))
	}
	return b
}

// isTerminal reports whether w is an *os.File on a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}

// Add records n more completed steps and redraws the bar if the last redraw
// is more than about a tenth of a second old. It is safe for concurrent use.
func (b *Bar) Add(n int) {
	if b == nil || !b.active {
		return
	}
	b.n.Add(int64(n))
	if b.done.Load() {
		return
	}
	now := int64(time.Since(b.start))
	last := b.lastDraw.Load()
	if now-last < int64(redrawEvery) || !b.lastDraw.CompareAndSwap(last, now) {
		return
	}
	// Only the goroutine that won the CAS draws; others keep counting.
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done.Load() {
		return
	}
	b.draw(time.Duration(now), false)
}

// Done draws the final state of the bar and ends the line. Later calls,
// and later calls to Add, draw nothing.
func (b *Bar) Done() {
	if b == nil || !b.active || b.done.Swap(true) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw(time.Since(b.start), true)
	io.WriteString(b.w, "\n")
}

// draw writes one line; b.mu must be held.
func (b *Bar) draw(elapsed time.Duration, final bool) {
	line := b.format(b.n.Load(), elapsed, final)
	pad := b.lastLen - len(line)
	b.lastLen = len(line)
	if pad > 0 {
		line += strings.Repeat(" ", pad)
	}
	// Write errors are deliberately ignored: a broken terminal must not
	// break the job whose progress is being reported.
	io.WriteString(b.w, "\r"+line)
}

// format renders the line for n steps done after elapsed time, without the
// leading carriage return.
func (b *Bar) format(n int64, elapsed time.Duration, final bool) string {
	var sb strings.Builder
	if b.label != "" {
		sb.WriteString(b.label)
		sb.WriteByte(' ')
	}
	if b.total <= 0 {
		fmt.Fprintf(&sb, "%d  %s", n, formatElapsed(elapsed))
		return sb.String()
	}
	shown := min(max(n, 0), b.total) // for the bar and percentage only
	filled := int(shown * barWidth / b.total)
	sb.WriteByte('[')
	if filled >= barWidth {
		sb.WriteString(strings.Repeat("=", barWidth))
	} else {
		sb.WriteString(strings.Repeat("=", filled))
		sb.WriteByte('>')
		sb.WriteString(strings.Repeat(" ", barWidth-filled-1))
	}
	fmt.Fprintf(&sb, "] %3d%% %d/%d  %s", shown*100/b.total, n, b.total, formatElapsed(elapsed))
	switch {
	case final || n >= b.total:
	case n <= 0:
		sb.WriteString("  eta ?")
	default:
		rem := time.Duration(float64(elapsed) * float64(b.total-n) / float64(n))
		sb.WriteString("  eta " + formatETA(rem))
	}
	return sb.String()
}

// formatElapsed renders an elapsed time as 12.3s, 4m05s or 2h03m.
func formatElapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return formatETA(d)
}

// formatETA renders a duration with whole seconds: 17s, 4m05s, 2h03m.
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	}
}
