package publictext

import (
	"bufio"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// modulePath is the module whose root the walk starts from.
const modulePath = "github.com/rffkit/rff"

// rules are the forbidden patterns, each with the reason printed next to a hit.
var rules = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`SPEC`), "cites the internal specification (cite docs/conventions.md or a paper)"},
	{regexp.MustCompile(`\.\./shared`), "points outside the repository (use $RFF_DATA or docs/)"},
	{regexp.MustCompile(`\b[Ii]ssue #?\d+`), "cites an issue number"},
}

// moduleRoot walks up from the working directory to the directory whose go.mod declares modulePath.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(strings.NewReader(string(b)))
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == modulePath {
					return dir
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod declaring %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// hit is one offending line.
type hit struct {
	file string
	line int
	text string
	why  string
}

func (h hit) String() string { return fmt.Sprintf("%s:%d: %s\n\t%s", h.file, h.line, h.why, h.text) }

// checkText reports the lines of text (starting at line first of file) that match a rule.
func checkText(file string, first int, text string) []hit {
	var out []hit
	for i, line := range strings.Split(text, "\n") {
		for _, r := range rules {
			if r.re.MatchString(line) {
				out = append(out, hit{file, first + i, strings.TrimSpace(line), r.why})
			}
		}
	}
	return out
}

// goComments returns the hits in the comments of a Go source file. The scanner tolerates syntax errors, so a file
// that does not compile is still checked.
func goComments(rel string, src []byte) []hit {
	fset := token.NewFileSet()
	f := fset.AddFile(rel, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, func(token.Position, string) {}, scanner.ScanComments)
	var out []hit
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.COMMENT {
			out = append(out, checkText(rel, fset.Position(pos).Line, lit)...)
		}
	}
}

// scriptComments returns the hits in the comment lines of a shell or Python script (its usage text; the code may
// name the default data directory).
func scriptComments(rel, src string) []hit {
	var out []hit
	for i, line := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			out = append(out, checkText(rel, i+1, t)...)
		}
	}
	return out
}

// publicFiles returns the files to check, relative to root: the non-test .go files (outside testdata, vendor and
// hidden directories), README.md, docs/*.md and the scripts (scripts/, their comments).
func publicFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			files = append(files, rel)
		case rel == "README.md":
			files = append(files, rel)
		case filepath.Dir(rel) == "docs" && strings.HasSuffix(name, ".md"):
			files = append(files, rel)
		case strings.HasPrefix(filepath.ToSlash(rel), "scripts/") && (strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".py")):
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// TestPublicText fails on every forbidden pattern in the public text of the module.
func TestPublicText(t *testing.T) {
	root := moduleRoot(t)
	files := publicFiles(t, root)
	if len(files) == 0 {
		t.Fatal("no files found")
	}
	var hits []hit
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(rel, ".go"):
			hits = append(hits, goComments(filepath.ToSlash(rel), src)...)
		case strings.HasSuffix(rel, ".sh") || strings.HasSuffix(rel, ".py"):
			hits = append(hits, scriptComments(filepath.ToSlash(rel), string(src))...)
		default:
			hits = append(hits, checkText(filepath.ToSlash(rel), 1, string(src))...)
		}
	}
	bad := map[string]int{}
	for _, h := range hits {
		t.Error(h)
		bad[h.file]++
	}
	if len(bad) > 0 {
		names := make([]string, 0, len(bad))
		for f := range bad {
			names = append(names, f)
		}
		sort.Strings(names)
		t.Logf("%d offending lines in %d files: %s", len(hits), len(bad), strings.Join(names, ", "))
	}
}

// TestRules checks the patterns themselves on examples that must and must not match.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		text string
		bad  bool
	}{
		{"see SPEC §4", true},
		{"../shared/data/letter", true},
		{"(issue 6)", true},
		{"Issue #12 says", true},
		{"issue 3 of the journal", true},
		{"docs/conventions.md §4", false},
		{"the kernel issues twelve loads", false},
		{"tissue 5", false},
		{"shared by all goroutines", false},
		{"$RFF_DATA/letter", false},
		{"spectral law", false},
	} {
		if got := len(checkText("x", 1, c.text)) > 0; got != c.bad {
			t.Errorf("%q: flagged %v, want %v", c.text, got, c.bad)
		}
	}
}

// TestGoCommentsOnly: string literals and code are not public text; comments are, including block comments.
func TestGoCommentsOnly(t *testing.T) {
	src := []byte("package p\n\n// fine\nconst a = \"../shared/data\"\n\n/* line one\n   see SPEC */\nfunc f() {} // issue 7\n")
	hits := goComments("p.go", src)
	if len(hits) != 2 || hits[0].line != 7 || hits[1].line != 8 {
		t.Fatalf("hits %v, want lines 7 and 8", hits)
	}
}
