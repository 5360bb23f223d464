package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// ErrTokenFile is wrapped by the errors of New and Reload about Options.TokenFile.
var ErrTokenFile = errors.New("bearer token file")

// tokenState is the bearer token in force: the SHA-256 of the token (nil: no authentication) and, for a token
// read from Options.TokenFile, the file's size and modification time when it was read. It is immutable once
// published; a rotation publishes a new one.
type tokenState struct {
	sum   []byte
	stamp stamp
}

// maxTokenFile is the largest token file read: a bearer token is a few hundred bytes at most.
const maxTokenFile = 64 << 10

// readTokenFile reads a token file: one token, surrounding white space ignored, none inside. The file is opened
// without blocking and checked to be a regular file on the descriptor read, so that a named pipe swapped in for it
// cannot stall the server, and it is read up to maxTokenFile bytes. The stamp is the opened file's, taken before
// its bytes are read — also when they hold no token (the zero stamp when the file could not be opened), so that a
// writer who finishes the file after the read changes the stamp again.
func readTokenFile(path string) (string, stamp, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		if errors.Is(err, errNotRegular) {
			return "", stamp{}, fmt.Errorf("%s is %w", path, err)
		}
		return "", stamp{}, err
	}
	defer f.Close()
	st := stampOf(fi)
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", st, err
	}
	if len(b) > maxTokenFile {
		return "", st, fmt.Errorf("%s holds more than %d KiB; it must hold one token", path, maxTokenFile>>10)
	}
	tok := strings.TrimSpace(strings.TrimPrefix(string(b), "\ufeff")) // an editor's byte-order mark is not the token's
	if tok == "" {
		return "", st, fmt.Errorf("%s is empty; it must hold one token", path)
	}
	if strings.ContainsAny(tok, " \t\r\n\v\f") {
		return "", st, fmt.Errorf("%s holds more than one word; it must hold one token (no spaces)", path)
	}
	for _, c := range []byte(tok) {
		if c < 0x21 || c > 0x7e { // a client could not send it in an Authorization header
			return "", st, fmt.Errorf("%s holds a character that is not printable ASCII; a bearer token is "+
				"letters, digits and ASCII punctuation", path)
		}
	}
	return tok, st, nil
}

func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// initToken sets the token of the options at start: Options.Token, or the content of Options.TokenFile (an error
// when both are set or when the file cannot be read or holds no single token).
func (s *Server) initToken() error {
	o := s.opts
	switch {
	case o.Token != "" && o.TokenFile != "":
		return errors.New("Token and TokenFile are both set; give one")
	case o.TokenFile != "":
		tok, st, err := readTokenFile(o.TokenFile)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrTokenFile, err)
		}
		s.token.Store(&tokenState{sum: hashToken(tok), stamp: st})
	case o.Token != "":
		s.token.Store(&tokenState{sum: hashToken(o.Token)})
	default:
		s.token.Store(&tokenState{})
	}
	return nil
}

// reloadToken re-reads Options.TokenFile (nothing to do without one) and publishes its token for the requests that
// start from then on. A file that is missing, unreadable, empty or holds more than one word keeps the token in
// force — the server is never opened up by a failed rotation — and the error is logged and returned.
func (s *Server) reloadToken() error {
	path := s.opts.TokenFile
	if path == "" {
		return nil
	}
	old := s.token.Load()
	before := fileStamp(path)
	tok, st, err := readTokenFile(path)
	if afterTokenRead != nil {
		afterTokenRead()
	}
	if err != nil {
		// Watch retries when the file changes again: after the stamp of what was read (or, when the file could not
		// be opened, of what was there before trying), never of what a writer may have finished since.
		if st == (stamp{}) {
			st = before
		}
		s.token.Store(&tokenState{sum: old.sum, stamp: st})
		s.metrics.tokenReloads.WithLabelValues("error").Inc()
		s.log.Error("bearer token not re-read; the previous token stays in force", "file", path, "err", err)
		return fmt.Errorf("%w: %w", ErrTokenFile, err)
	}
	sum := hashToken(tok)
	if subtle.ConstantTimeCompare(sum, old.sum) == 1 {
		if st != old.stamp {
			s.token.Store(&tokenState{sum: old.sum, stamp: st})
		}
		s.metrics.tokenReloads.WithLabelValues("unchanged").Inc()
		return nil
	}
	s.token.Store(&tokenState{sum: sum, stamp: st})
	s.metrics.tokenReloads.WithLabelValues("rotated").Inc()
	s.log.Info("bearer token replaced", "file", path)
	return nil
}

// afterTokenRead, when set (tests), runs in reloadToken between reading the token file and recording its stamp.
var afterTokenRead func()

// fileStamp is the stamp of the file at path: its size, modification time, device and inode (size and time -1 when
// it cannot be examined).
func fileStamp(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{size: -1, mod: -1}
	}
	return stampOf(fi)
}

// tokenFileChanged reports whether Options.TokenFile's stamp (or its absence) differs from when it was last read,
// so that Watch re-reads it once per change, successful or not.
func (s *Server) tokenFileChanged() bool {
	return s.opts.TokenFile != "" && fileStamp(s.opts.TokenFile) != s.token.Load().stamp
}

// authorized checks the bearer token in constant time (both sides hashed first, so neither length leaks).
func (s *Server) authorized(r *http.Request) bool {
	want := s.token.Load().sum
	if want == nil {
		return true
	}
	hs := r.Header.Values("Authorization")
	if len(hs) != 1 { // none, or several that might disagree: neither is a token
		return false
	}
	h := hs[0]
	const scheme = "bearer "
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(h[len(scheme):])))
	return subtle.ConstantTimeCompare(sum[:], want) == 1
}
