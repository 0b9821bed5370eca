// Package buildcache is the build cache of every step of the node image
// builder (hack/tools/internal/nodeimage), with the semantics and the stamp
// file format of hack/lib.sh's cache_key, cache_fresh, cache_record and
// cache_forget, so that a stamp the shell wrote and one written here are
// the same file: a step describes its inputs as text, the digest of that
// text is its key, and its stamp (a file beside the output) holds the key
// the output was last built from. A step is fresh when every output exists
// and the stamp holds the key of the inputs as they are now. The stamp is
// forgotten before an output is replaced and recorded after it is in
// place, so that an interrupted step builds again.
package buildcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Key digests a description of a step's inputs: the sha256 of the text,
// in hex, as `cache_key` (sha256sum) prints it.
func Key(description string) string {
	sum := sha256.Sum256([]byte(description))
	return hex.EncodeToString(sum[:])
}

// Stamp is the file that holds the key a step's output was built from.
type Stamp string

// Holds says whether the stamp holds key. As in the shell, where the
// stamp is read by $(cat ...), trailing newlines do not count.
func (s Stamp) Holds(key string) bool {
	b, err := os.ReadFile(string(s))
	if err != nil {
		return false
	}
	return strings.TrimRight(string(b), "\n") == key
}

// Fresh says whether every output exists and the stamp holds key.
func (s Stamp) Fresh(key string, outputs ...string) bool {
	for _, o := range outputs {
		if _, err := os.Lstat(o); err != nil {
			return false
		}
	}
	return s.Holds(key)
}

// Record writes key into the stamp, once the output is in place: a line,
// through a temporary file, so that the stamp is never half written.
func (s Stamp) Record(key string) error {
	if err := os.MkdirAll(filepath.Dir(string(s)), 0o755); err != nil {
		return fmt.Errorf("recording %s: %w", s, err)
	}
	tmp := string(s) + ".tmp"
	if err := os.WriteFile(tmp, []byte(key+"\n"), 0o644); err != nil {
		return fmt.Errorf("recording %s: %w", s, err)
	}
	if err := os.Rename(tmp, string(s)); err != nil {
		return fmt.Errorf("recording %s: %w", s, err)
	}
	return nil
}

// Forget removes the stamp, before the output is replaced.
func (s Stamp) Forget() error {
	if err := os.Remove(string(s)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forgetting %s: %w", s, err)
	}
	return nil
}

// Step is one cached build step: its stamp, the key of its inputs as they
// are now, and the outputs that must exist for it to be fresh.
type Step struct {
	Stamp   Stamp
	Key     string
	Outputs []string
}

// Run builds the step unless it is fresh: it forgets the stamp, runs build
// and records the key once build succeeded. It says whether it built.
func (s Step) Run(build func() error) (built bool, err error) {
	if s.Stamp.Fresh(s.Key, s.Outputs...) {
		return false, nil
	}
	if err := s.Stamp.Forget(); err != nil {
		return false, err
	}
	if err := build(); err != nil {
		return true, err
	}
	return true, s.Stamp.Record(s.Key)
}

// Description is the text a step's key digests: one line per input, in the
// order the step writes them.
type Description struct{ b strings.Builder }

// Line adds a line (fmt.Sprint of the values, separated by blanks).
func (d *Description) Line(values ...any) *Description {
	d.b.WriteString(strings.TrimSuffix(fmt.Sprintln(values...), "\n"))
	d.b.WriteByte('\n')
	return d
}

// Text adds s as it is (several lines, or none).
func (d *Description) Text(s string) *Description {
	d.b.WriteString(s)
	return d
}

// FileSum adds the sha256 of the file's content, as `sha256sum < FILE`
// prints it ("<hex>  -").
func (d *Description) FileSum(path string) error {
	sum, err := FileSHA256(path)
	if err != nil {
		return err
	}
	d.Line(sum + "  -")
	return nil
}

// Files adds one `sha256sum` line ("<hex>  <path>") per regular file under
// dir/paths that keep selects (nil: every file), sorted by its path
// relative to dir, as hack/lib.sh's cache_hash_files prints them. A path
// that does not exist adds nothing, as find's error there did not either.
func (d *Description) Files(dir string, paths []string, keep func(rel string) bool) error {
	var files []string
	for _, p := range paths {
		err := filepath.WalkDir(filepath.Join(dir, p), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !e.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			if keep == nil || keep(rel) {
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("hashing the files of %s: %w", filepath.Join(dir, p), err)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		sum, err := FileSHA256(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		d.Line(sum + "  " + f)
	}
	return nil
}

// String is the description.
func (d *Description) String() string { return d.b.String() }

// Key is the description's key.
func (d *Description) Key() string { return Key(d.b.String()) }

// FileSHA256 is the sha256 of a file's content, in hex.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
