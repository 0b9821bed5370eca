package nodeimage

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// NodeConfig is the config of a kind node image built from sources
// (FromSources): what kind's own base image sets. kind
// stops a node with the stop signal, which systemd takes as "shut down".
func NodeConfig(arch string) v1.ConfigFile {
	return v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      v1.Time{Time: time.Unix(0, 0).UTC()},
		Config: v1.Config{
			Entrypoint: []string{"/usr/local/bin/entrypoint", "/sbin/init"},
			Env: []string{
				"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				"container=docker",
			},
			StopSignal: "SIGRTMIN+3",
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
}

// BaseFromLayers makes a base image of the given layer tarballs (plain tar
// files of a root file system, applied in order) with NodeConfig.
func BaseFromLayers(layerTars []string, arch string) (v1.Image, error) {
	if len(layerTars) == 0 {
		return nil, errors.New("no layers given")
	}
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{})
	if err != nil {
		return nil, err
	}
	for _, p := range layerTars {
		l, err := tarball.LayerFromFile(p)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", p, err)
		}
		if img, err = mutate.Append(img, mutate.Addendum{
			Layer:   l,
			History: v1.History{Created: v1.Time{Time: time.Unix(0, 0).UTC()}, CreatedBy: "sidecar-kubelet: " + path.Base(p)},
		}); err != nil {
			return nil, fmt.Errorf("layer %s: %w", p, err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	want := NodeConfig(arch)
	want.RootFS = cf.RootFS
	want.History = cf.History
	return mutate.ConfigFile(img, &want)
}

// glibcVersion is a GLIBC_x.y symbol version as two numbers.
type glibcVersion [2]int

func (v glibcVersion) String() string { return fmt.Sprintf("GLIBC_%d.%d", v[0], v[1]) }

func (v glibcVersion) less(w glibcVersion) bool {
	return v[0] < w[0] || (v[0] == w[0] && v[1] < w[1])
}

func parseGlibc(s string) (glibcVersion, bool) {
	rest, ok := strings.CutPrefix(s, "GLIBC_")
	if !ok {
		return glibcVersion{}, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 {
		return glibcVersion{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return glibcVersion{}, false
	}
	return glibcVersion{major, minor}, true
}

// glibcNeeds says whether the ELF binary b is dynamically linked and, if it
// is, the newest GLIBC_ symbol version it needs and its interpreter.
func glibcNeeds(b []byte) (dynamic bool, interp string, newest glibcVersion, err error) {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return false, "", glibcVersion{}, fmt.Errorf("not an ELF binary: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		raw, err := io.ReadAll(p.Open())
		if err != nil {
			return false, "", glibcVersion{}, err
		}
		interp = strings.TrimRight(string(raw), "\x00")
		dynamic = true
	}
	if !dynamic {
		return false, "", glibcVersion{}, nil
	}
	syms, err := f.ImportedSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return true, interp, glibcVersion{}, err
	}
	for _, s := range syms {
		if v, ok := parseGlibc(s.Version); ok && newest.less(v) {
			newest = v
		}
	}
	return true, interp, newest, nil
}

// glibcProvides is the newest GLIBC_ version a libc.so.6 defines.
func glibcProvides(libc []byte) (glibcVersion, error) {
	f, err := elf.NewFile(bytes.NewReader(libc))
	if err != nil {
		return glibcVersion{}, err
	}
	defer f.Close()
	defs, err := f.DynamicVersions()
	if err != nil {
		return glibcVersion{}, err
	}
	var newest glibcVersion
	for _, d := range defs {
		if v, ok := parseGlibc(d.Name); ok && newest.less(v) {
			newest = v
		}
	}
	if newest == (glibcVersion{}) {
		return glibcVersion{}, errors.New("defines no GLIBC_ version")
	}
	return newest, nil
}

// libcDirs are where Debian-like and other distributions keep libc.so.6.
var libcDirs = []string{"lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu", "lib64", "usr/lib64", "lib", "usr/lib"}

// checkRuns refuses a kubelet that would not start in the base image: a
// dynamically linked one whose interpreter the base lacks, or that needs a
// newer glibc than the base's (it would fail with "GLIBC_2.xx not found").
// A static kubelet always passes, and so does a file that is not ELF (a
// test's stand-in; checkArch lets it through too).
func checkRuns(kubelet []byte, base v1.Image) error {
	if ELFArch(kubelet) == "" {
		return nil
	}
	dynamic, interp, needs, err := glibcNeeds(kubelet)
	if err != nil || !dynamic {
		return err
	}
	wanted := []string{interp}
	for _, d := range libcDirs {
		wanted = append(wanted, d+"/libc.so.6")
	}
	files, err := readFiles(base, wanted)
	if err != nil {
		return err
	}
	hint := "build it static (CGO_ENABLED=0), or on a distribution no newer than the node image's"
	if _, ok := files[strings.TrimPrefix(interp, "/")]; !ok {
		return fmt.Errorf("the kubelet is dynamically linked and its interpreter %s is not in the base image: %s", interp, hint)
	}
	libc := ""
	for _, d := range libcDirs {
		if _, ok := files[d+"/libc.so.6"]; ok {
			libc = d + "/libc.so.6"
			break
		}
	}
	if libc == "" {
		return fmt.Errorf("the kubelet is dynamically linked and the base image has no libc.so.6: %s", hint)
	}
	provides, err := glibcProvides(files[libc].data)
	if err != nil {
		return fmt.Errorf("reading the base image's %s: %w", libc, err)
	}
	if err := glibcEnough(needs, provides); err != nil {
		return fmt.Errorf("%w (%s): it would not start there; %s", err, libc, hint)
	}
	return nil
}

// glibcEnough says whether a glibc of version provides runs a binary that
// needs version needs.
func glibcEnough(needs, provides glibcVersion) error {
	if provides.less(needs) {
		return fmt.Errorf("the kubelet needs %s but the base image's glibc is %s", needs, provides)
	}
	return nil
}

type file struct {
	hdr  *tar.Header
	data []byte
}

// readFiles looks up the wanted paths in the image's flattened file
// system, resolving symbolic links on the way, of folders too (a
// merged-/usr Debian's lib64 -> usr/lib64, a libc.so.6 -> libc-2.31.so),
// and returns the regular files found, by wanted path. Only files named
// like a wanted one, libc's or the interpreter's are kept in memory while
// it reads.
func readFiles(img v1.Image, wanted []string) (map[string]file, error) {
	keep := map[string]bool{}
	for _, w := range wanted {
		keep[path.Base(w)] = true
	}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	regular := map[string]file{}
	links := map[string]string{} // every symbolic link: name -> target
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		name := clean(h.Name)
		switch h.Typeflag {
		case tar.TypeSymlink:
			links[name] = h.Linkname
		case tar.TypeReg:
			base := path.Base(name)
			if !keep[base] && !strings.HasPrefix(base, "libc") && !strings.HasPrefix(base, "ld-linux") {
				continue
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			regular[name] = file{hdr: h, data: b}
		}
	}
	// resolve follows the links in p, component by component.
	resolve := func(p string) string {
		for hops := 0; hops < 40; hops++ {
			parts := strings.Split(p, "/")
			changed := false
			for i := range parts {
				prefix := strings.Join(parts[:i+1], "/")
				target, ok := links[prefix]
				if !ok {
					continue
				}
				if !path.IsAbs(target) {
					target = path.Join(path.Dir(prefix), target)
				}
				p = clean(path.Join(append([]string{target}, parts[i+1:]...)...))
				changed = true
				break
			}
			if !changed {
				return p
			}
		}
		return ""
	}
	out := map[string]file{}
	for _, w := range wanted {
		if f, ok := regular[resolve(clean(w))]; ok {
			out[clean(w)] = f
		}
	}
	return out, nil
}
