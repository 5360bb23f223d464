package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/model"
)

// Ext is the extension of the model files a server loads; a model is served under its file name without it.
const Ext = ".rff"

// entry is one loaded model. It is immutable once published: a reload builds new entries and swaps the whole set,
// so a request keeps the entry it started with to the end.
type entry struct {
	name    string
	version string   // the first 16 hex digits of the SHA-256 of the file's bytes
	sum     [32]byte // the SHA-256 of the file's bytes
	model   *rff.Model
	info    rff.Info
	dim     int            // d, the number of input columns
	outputs int            // p, the number of outputs (class scores for a classifier)
	column  map[string]int // input column name → its index
	labels  [][]byte       // the class names as JSON strings (classifiers only)
	label   int            // the length of the longest of labels
	meta    []byte         // the model metadata response
	quoted  []byte         // the name as a JSON string
}

// classifier reports whether the model predicts class labels.
func (e *entry) classifier() bool { return e.labels != nil }

// logistic reports whether the model is a classifier fitted with the logistic loss, which has class probabilities.
func (e *entry) logistic() bool { return e.classifier() && e.info.Loss == "logistic" }

// uncertain reports whether the model holds a posterior, which gives predictive standard deviations.
func (e *entry) uncertain() bool { return e.info.Uncertainty }

// modelSet is the immutable set of models a server answers with at one moment.
type modelSet struct {
	byName map[string]*entry
	names  []string // sorted
}

func (ms *modelSet) get(name string) *entry {
	if ms == nil {
		return nil
	}
	return ms.byName[name]
}

// loadEntry reads and checks a model file's bytes: see loadEntryFrom.
func loadEntry(name string, data []byte, budget int64) (*entry, error) {
	return loadEntryFrom(name, bytes.NewReader(data), budget)
}

// loadEntryFrom reads and checks a model file from r: the model is decoded as it is read and checked as
// rff.ReadAtMost does with the memory budget (the map rebuilt and compared with the probe features stored in the
// file; a version-1 map, redrawn from its seed, refused before it is drawn when it would need more than budget
// bytes), then must predict one row. The entry's checksum is that of the bytes read.
func loadEntryFrom(name string, r io.Reader, budget int64) (*entry, error) {
	h := sha256.New()
	m, err := rff.ReadAtMost(io.TeeReader(r, h), budget)
	if err != nil {
		return nil, err
	}
	info := m.Info()
	e := &entry{name: name, model: m, info: info, dim: len(info.Inputs),
		outputs: info.Outputs, column: make(map[string]int, len(info.Inputs))}
	h.Sum(e.sum[:0])
	e.version = hex.EncodeToString(e.sum[:8])
	if e.dim < 1 || e.outputs < 1 {
		return nil, fmt.Errorf("model has %d inputs and %d outputs", e.dim, e.outputs)
	}
	for j, c := range info.Inputs {
		if _, dup := e.column[c]; dup {
			return nil, fmt.Errorf("input column %q appears twice", c)
		}
		e.column[c] = j
	}
	p, err := m.PredictRows(make([]float64, e.dim), 1)
	if err != nil {
		return nil, fmt.Errorf("predicting one row: %w", err)
	}
	if p.Outputs != e.outputs || len(p.Values) != e.outputs {
		return nil, fmt.Errorf("predicting one row: %d outputs, the model says %d", p.Outputs, e.outputs)
	}
	if p.Labels != nil {
		if len(info.Labels) == 0 {
			return nil, errors.New("a classifier without class names")
		}
		for _, l := range info.Labels {
			e.labels = append(e.labels, appendString(nil, l))
			e.label = max(e.label, len(e.labels[len(e.labels)-1]))
		}
	}
	e.quoted = appendString(nil, name)
	if e.meta, err = json.Marshal(e.metadata()); err != nil {
		return nil, err
	}
	return e, nil
}

// tensorMeta describes a tensor in model metadata.
type tensorMeta struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// modelMeta is the model metadata response: the protocol's fields, and the model's description under "rff"
// (its input column names in order, targets, class names, kernel, map …).
type modelMeta struct {
	Name       string         `json:"name"`
	Versions   []string       `json:"versions"`
	Platform   string         `json:"platform"`
	Inputs     []tensorMeta   `json:"inputs"`
	Outputs    []tensorMeta   `json:"outputs"`
	Parameters map[string]any `json:"parameters"`
	RFF        rff.Info       `json:"rff"`
}

func (e *entry) metadata() modelMeta {
	md := modelMeta{Name: e.name, Versions: []string{e.version}, Platform: "rff",
		Inputs:     []tensorMeta{{InputName, "FP64", []int64{-1, int64(e.dim)}}},
		Outputs:    []tensorMeta{{OutputPredictions, "FP64", []int64{-1, int64(e.outputs)}}},
		Parameters: map[string]any{"task": e.info.Task, "kernel": e.info.Kernel}, RFF: e.info}
	if e.classifier() {
		md.Outputs = append(md.Outputs, tensorMeta{OutputLabels, "BYTES", []int64{-1}},
			tensorMeta{OutputScores, "FP64", []int64{-1, int64(e.outputs)}})
	}
	if e.logistic() {
		md.Outputs = append(md.Outputs, tensorMeta{OutputProbabilities, "FP64", []int64{-1, int64(e.outputs)}})
	}
	if e.uncertain() {
		md.Outputs = append(md.Outputs, tensorMeta{OutputStd, "FP64", []int64{-1, int64(e.outputs)}})
	}
	return md
}

// stamp is what a directory poll compares: a file's size and modification time, and its device and inode where the
// system says them (Unix), or, for an entry named NAME.rff that is no model file (see modelFiles), why it is
// skipped.
type stamp struct {
	size     int64
	mod      int64
	dev, ino uint64
	skip     string
}

// stampOf is the stamp of the file fi describes.
func stampOf(fi fs.FileInfo) stamp {
	dev, ino := fileID(fi)
	return stamp{size: fi.Size(), mod: fi.ModTime().UnixNano(), dev: dev, ino: ino}
}

// modelFiles lists the model files of dir: regular files (or links to them) named NAME.rff, NAME not empty and not
// starting with a dot (temporary files of an editor or of an atomic write are not models). An entry so named that
// is not one — a directory, a FIFO, a device, a socket, a dangling symlink, a symlink loop, one that cannot be
// looked at — is listed too, with skip saying why, so that the reload logs it and a poll sees it appear, change or
// go; its stamp holds only that reason, so it does not change while the entry stays as it is. An entry that
// disappears while the directory is read is left out. Nothing is opened.
func modelFiles(dir string) (map[string]stamp, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]stamp)
	for _, de := range des {
		name, ok := strings.CutSuffix(de.Name(), Ext)
		if !ok || name == "" || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, de.Name())
		fi, err := os.Stat(path)
		switch {
		case err == nil && fi.Mode().IsRegular():
			out[name] = stampOf(fi)
		case err == nil:
			why := "not a regular file: " + fileKind(fi.Mode())
			if de.Type()&fs.ModeSymlink != 0 {
				if target, err := os.Readlink(path); err == nil {
					why += " (a symlink to " + target + ")"
				}
			}
			out[name] = stamp{skip: why}
		default:
			if why, ok := statFailure(path, err); ok {
				out[name] = stamp{skip: why}
			}
		}
	}
	return out, nil
}

// errNotRegular is wrapped by openRegular's error for a path that names something other than a regular file.
var errNotRegular = errors.New("not a regular file")

// statRegular returns the FileInfo of the open file f, or closes f and fails when it is not a regular file.
func statRegular(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s", errNotRegular, fileKind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return fi, nil
}

// fileKind names the kind of file of a mode that is not a regular file's.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// statFailure says why path, listed in its directory, could not be looked at (err is the error of os.Stat), or
// false when it is gone.
func statFailure(path string, err error) (string, bool) {
	lfi, lerr := os.Lstat(path)
	switch {
	case lerr != nil && errors.Is(lerr, fs.ErrNotExist):
		return "", false // removed since the directory was read
	case lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist):
		if target, err := os.Readlink(path); err == nil {
			return "a dangling symlink (to " + target + ", which does not exist)", true
		}
		return "a dangling symlink", true
	case isLoop(err):
		return "a symlink loop", true
	case lerr == nil && lfi.Mode()&fs.ModeSymlink == 0 && errors.Is(err, fs.ErrNotExist):
		return "", false // gone when looked at and back since: the next read of the directory sees it
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is logged with the reason
	}
	return err.Error(), true
}

// Reload re-reads the model directory. Every model file is read and hashed, whatever its size and modification
// time: a new file, or one whose bytes changed, is loaded and checked completely before its model replaces the one
// served under its name; a file that fails to load or check is logged and leaves the model it would have replaced
// in service, as does an entry named NAME.rff that is not a regular file (a directory, a FIFO, a device, a dangling
// symlink, a symlink loop), which is logged and never opened; a file that disappeared stops being served. The new
// set of models is published at once: requests already running finish on the models they started with. Reload
// returns the errors of the files that failed, these entries' included, joined (nil when all loaded); the models
// that loaded are served either way. Reload also re-reads Options.TokenFile (see there): its error, if any, is
// joined to the others. It returns an error for a nil or zero Server.
func (s *Server) Reload() error {
	if !s.ok() {
		return errNoServer
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return errors.Join(s.reloadToken(), s.reload(false))
}

// reload reads the model directory and publishes its models (see Reload). When watched (a reload of Watch), a
// file whose stamp is the one it had when the model in service under its name was read from it is not read
// again: that model stays.
func (s *Server) reload(watched bool) error {
	start := time.Now()
	files, err := modelFiles(s.dir)
	if err != nil {
		s.metrics.reloads.WithLabelValues("error").Inc()
		s.log.Error("reading the model directory", "dir", s.dir, "err", err)
		return fmt.Errorf("reading the model directory: %w", err)
	}
	s.seen = files
	old := s.models.Load()
	next := &modelSet{byName: make(map[string]*entry, len(files))}
	loaded := make(map[string]stamp, len(files))
	var errs []error
	for name, st := range files {
		path := filepath.Join(s.dir, name+Ext)
		prev := old.get(name)
		var e *entry
		var err error
		switch {
		case st.skip != "":
			err = errors.New(st.skip) // not opened
		case watched && prev != nil && st == s.loaded[name]:
			e, loaded[name] = prev, st // unchanged since prev was read from it: not read again
		default:
			var at stamp
			if e, at, err = s.loadFile(name, path, prev); err == nil {
				loaded[name] = at
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			s.metrics.loadErrors.Inc()
			if prev != nil {
				s.log.Error("model file not loaded; the previous version stays in service", "model", name,
					"file", path, "version", prev.version, "err", err)
				next.byName[name] = prev
			} else {
				s.log.Error("model file not loaded", "model", name, "file", path, "err", err)
			}
			continue
		}
		if e != prev {
			if prev != nil {
				s.log.Info("model replaced", "model", name, "version", e.version, "previous", prev.version, "file", path)
			} else {
				s.log.Info("model loaded", "model", name, "version", e.version, "file", path,
					"task", e.info.Task, "inputs", e.dim, "outputs", e.outputs)
			}
		}
		next.byName[name] = e
	}
	if old != nil {
		for _, name := range old.names {
			if _, ok := next.byName[name]; !ok {
				s.log.Info("model removed (its file is gone)", "model", name)
				s.metrics.forget(name)
			}
		}
	}
	for name := range next.byName {
		next.names = append(next.names, name)
	}
	sort.Strings(next.names)
	s.loaded = loaded
	s.models.Store(next)
	s.metrics.loaded.Set(float64(len(next.names)))
	result := "ok"
	if len(errs) > 0 {
		result = "error"
	}
	s.metrics.reloads.WithLabelValues(result).Inc()
	s.log.Debug("model directory read", "dir", s.dir, "models", len(next.names), "failed", len(errs),
		"seconds", time.Since(start).Seconds())
	return errors.Join(errs...)
}

// loadFile loads the model file at path, or returns prev when the file holds the same bytes, with the stamp of the
// opened file taken before its bytes are read (a writer who changes the file after that changes its stamp again).
// A file over Options.MaxModelBytes is refused unread, and one whose head is not a model file's after its first
// bytes. The file is opened without waiting (a FIFO put in its place since the directory was read does not block
// the open) and refused unread unless it is a regular file.
func (s *Server) loadFile(name, path string, prev *entry) (*entry, stamp, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, stamp{}, err
	}
	defer f.Close()
	if fi.Size() > s.opts.MaxModelBytes {
		return nil, stamp{}, fmt.Errorf("the file has %d bytes, more than the %d a model may have (MaxModelBytes, --max-memory)", fi.Size(), s.opts.MaxModelBytes)
	}
	var head [model.HeadSize]byte
	n, err := io.ReadFull(f, head[:min(model.HeadSize, fi.Size())])
	if err != nil {
		return nil, stamp{}, err
	}
	if err := model.CheckHead(head[:n]); err != nil {
		return nil, stamp{}, err
	}
	// The file may grow while it is read (a copy in progress): it is read to its end, within the limit. It is
	// streamed — hashed first when a model is in service under this name, so that an unchanged file is not decoded
	// again, then decoded from the start — never held whole: a reload takes about the model's own memory.
	tooLong := fmt.Errorf("the file has more than the %d bytes a model may have (MaxModelBytes, --max-memory)", s.opts.MaxModelBytes)
	rest := func() io.Reader {
		return io.MultiReader(bytes.NewReader(head[:n]), io.LimitReader(f, s.opts.MaxModelBytes-int64(n)+1))
	}
	if prev != nil {
		h := sha256.New()
		read, err := io.Copy(h, rest())
		switch {
		case err != nil:
			return nil, stamp{}, err
		case read > s.opts.MaxModelBytes:
			return nil, stamp{}, tooLong
		case [sha256.Size]byte(h.Sum(nil)) == prev.sum:
			return prev, stampOf(fi), nil
		}
		if _, err := f.Seek(int64(n), io.SeekStart); err != nil {
			return nil, stamp{}, err
		}
	}
	e, err := loadEntryFrom(name, rest(), s.opts.MaxModelBytes)
	switch {
	case errors.Is(err, rff.ErrTooLong):
		return nil, stamp{}, tooLong
	case err != nil:
		return nil, stamp{}, err
	}
	return e, stampOf(fi), nil
}

// Watch polls the model directory every interval until ctx is done and reloads it when a model file appears,
// disappears, changes size or modification time, or is replaced by another file (on Unix, where a file's device and
// inode are known), or an entry named NAME.rff that is not a regular file appears, disappears or changes kind
// (logged by that reload, not at every poll); it re-reads Options.TokenFile when the file so changes, appears or
// disappears. Its reload is Reload's, except that it reads only the files that changed: a model file with the
// size, modification time (and inode) it had when its model in service was read from it is not read or hashed
// again, so that touching one file does not cost re-reading every other. A file rewritten in place with the same
// size within the file system's time resolution, or given back its modification time, is seen by Reload only,
// which reads and hashes every file. An interval ≤ 0 means 2 s. It returns at once for a nil or zero Server or a
// nil ctx.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	if !s.ok() || ctx == nil {
		return
	}
	if interval <= 0 {
		interval = 2 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		files, err := modelFiles(s.dir)
		s.reloadMu.Lock()
		if s.tokenFileChanged() {
			_ = s.reloadToken() // logged there
		}
		if err != nil || !sameStamps(files, s.seen) {
			_ = s.reload(true) // logged there
		}
		s.reloadMu.Unlock()
	}
}

func sameStamps(a, b map[string]stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Models returns the names of the models served now, sorted (none for a nil or zero Server).
func (s *Server) Models() []string {
	if !s.ok() {
		return nil
	}
	return append([]string(nil), s.models.Load().names...)
}
