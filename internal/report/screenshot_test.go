package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The screenshot's size and the page's background colour (--bg of the style sheet).
const (
	shotW, shotH  = 1200, 2000
	bgR, bgG, bgB = 0xee, 0xf1, 0xf5
)

// screenshot renders the page in headless Chromium and returns the screenshot; the test is skipped when Chromium
// is not installed. It fails when Chromium fails or its log shows an error of the page (a console error or an
// uncaught exception).
func screenshot(t *testing.T, p *Page) image.Image {
	t.Helper()
	return screenshotAt(t, p, shotW, shotH)
}

// screenshotAt is screenshot in a window of w×h pixels.
func screenshotAt(t *testing.T, p *Page, w, h int) image.Image {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium)")
	}
	dir := t.TempDir()
	html, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "out.png")
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(html, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", w, h), "file://"+html)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "Uncaught") || strings.Contains(line, "ERROR:CONSOLE") {
			t.Errorf("chromium reports an error of the page: %s", line)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, stderr.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != w || sz.Y != h {
		t.Fatalf("screenshot of %v, want %dx%d", sz, w, h)
	}
	return img
}

// cards returns the bounding boxes of the connected regions of the screenshot that differ from the page's
// background and are at least minW×minH pixels (the cards: each panel, each table), top to bottom and left to
// right.
func cards(img image.Image, minW, minH int) []image.Rectangle {
	bd := img.Bounds()
	w, h := bd.Dx(), bd.Dy()
	fg := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, _ := img.At(bd.Min.X+x, bd.Min.Y+y).RGBA()
			fg[y*w+x] = r>>8 != bgR || g>>8 != bgG || b>>8 != bgB
		}
	}
	seen := make([]bool, w*h)
	var out []image.Rectangle
	var queue []int
	for start := range fg {
		if !fg[start] || seen[start] {
			continue
		}
		box := image.Rect(start%w, start/w, start%w+1, start/w+1)
		seen[start] = true
		queue = append(queue[:0], start)
		for len(queue) > 0 {
			i := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			x, y := i%w, i/w
			box = box.Union(image.Rect(x, y, x+1, y+1))
			for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
				if j < 0 || j >= len(fg) || (j == i-1 && x == 0) || (j == i+1 && x == w-1) || !fg[j] || seen[j] {
					continue
				}
				seen[j] = true
				queue = append(queue, j)
			}
		}
		if box.Dx() >= minW && box.Dy() >= minH {
			out = append(out, box)
		}
	}
	slices.SortFunc(out, func(a, b image.Rectangle) int {
		if a.Min.Y != b.Min.Y {
			return a.Min.Y - b.Min.Y
		}
		return a.Min.X - b.Min.X
	})
	return out
}

// colours counts the distinct colours of img inside r, and the pixels of a saturated colour (the data of a figure,
// not the greys of its text and frame).
func colours(img image.Image, r image.Rectangle) (distinct, saturated int) {
	seen := map[[3]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			c := [3]uint32{cr >> 8, cg >> 8, cb >> 8}
			seen[c] = true
			if max(c[0], c[1], c[2])-min(c[0], c[1], c[2]) >= 80 {
				saturated++
			}
		}
	}
	return len(seen), saturated
}

// checkShot checks that every panel of p is a card of the screenshot, in the page's order (figures first, then
// notes), that every figure shows many colours, data drawn in colour among them, and that a note shows none.
func checkShot(t *testing.T, p *Page, img image.Image) {
	t.Helper()
	if d, _ := colours(img, img.Bounds()); d < 50 {
		t.Fatalf("the screenshot has %d colours: blank", d)
	}
	var figures, notes []Panel
	for _, pn := range p.Panels {
		if pn.Figure != nil {
			figures = append(figures, pn)
		} else {
			notes = append(notes, pn)
		}
	}
	panels := append(figures, notes...)
	found := cards(img, 300, 80)
	if len(found) < len(panels) {
		t.Fatalf("%d cards in the screenshot (%v), want at least the %d panels", len(found), found, len(panels))
	}
	for i, pn := range panels {
		box := found[i]
		distinct, saturated := colours(img, box)
		t.Logf("panel %q: %v, %d colours, %d saturated pixels", pn.Title, box, distinct, saturated)
		if box.Max.Y >= shotH-1 {
			t.Errorf("panel %q runs off the bottom of the window: %v", pn.Title, box)
		}
		if pn.Figure != nil && (distinct < 40 || saturated < 200 || box.Dy() < 300) {
			t.Errorf("panel %q (%v) shows %d colours and %d saturated pixels: no figure drawn", pn.Title, box, distinct, saturated)
		}
		if pn.Figure == nil && saturated > 50 { // a figure has thousands; text may have a few coloured fringes
			t.Errorf("note %q (%v) shows %d saturated pixels: the cards are not where the page puts its panels", pn.Title, box, saturated)
		}
	}
}

func TestScreenshotRegression(t *testing.T) {
	p := regressionPage(t, 600)
	checkShot(t, p, screenshot(t, p))
}

func TestScreenshotClassification(t *testing.T) {
	p := classificationPage()
	checkShot(t, p, screenshot(t, p))
}

// TestScreenshotNarrow: in a window narrower than a card's preferred 500 px (a phone, half a screen) the cards
// shrink to the window instead of running past its right edge.
func TestScreenshotNarrow(t *testing.T) {
	const w = 420
	img := screenshotAt(t, regressionPage(t, 300), w, 1600)
	found := cards(img, 200, 80)
	if len(found) == 0 {
		t.Fatal("no card in the screenshot")
	}
	for _, c := range found {
		if c.Max.X >= w-4 {
			t.Errorf("a card runs to the window's right edge: %v in a window %d px wide", c, w)
		}
	}
}
