// Command imgpack packs local files into a one-layer container image and
// writes it as an image tarball that `ctr images import` (and `docker load`)
// accept. The local cluster has no registry: its images are built this way.
//
//	imgpack -o pause.tar -tag sidecar-kubelet.local/pause:1 -entrypoint /pause _output/images/pause:/pause
//
// -layer adds plain tarballs of files (a root file system, say) as the
// image's first layers, under the packed files.
//
// Each argument is SRC:DST; SRC is a file or a folder (copied whole), DST its
// absolute path in the image. Files keep their permission bits; owners are
// root and times are zero, so the same inputs give the same image digest.
// Symbolic links are followed (the image gets their targets' content), or,
// with -symlinks, packed as links: a root file system staged in a folder
// (busybox and its applet links, say) then keeps its links.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var entrypoint, cmd, env, layers list
	out := flag.String("o", "", "output tarball (required)")
	tag := flag.String("tag", "", "image reference, e.g. sidecar-kubelet.local/pause:1 (required)")
	workdir := flag.String("workdir", "/", "working directory")
	arch := flag.String("arch", runtime.GOARCH, "the image's architecture (that of the files packed)")
	symlinks := flag.Bool("symlinks", false, "pack symbolic links as links instead of their targets")
	flag.Var(&entrypoint, "entrypoint", "entrypoint argument (repeat for each)")
	flag.Var(&cmd, "cmd", "cmd argument (repeat for each)")
	flag.Var(&env, "env", "KEY=VALUE (repeat)")
	flag.Var(&layers, "layer", "a plain tar of files to put under the packed ones, as the image's first layers (repeat; e.g. a root file system)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: imgpack -o OUT.tar -tag REF [flags] SRC:DST...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || *tag == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	keepLinks = *symlinks
	if err := run(*out, *tag, *workdir, *arch, entrypoint, cmd, env, layers, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "imgpack:", err)
		os.Exit(1)
	}
}

func run(out, tag, workdir, arch string, entrypoint, cmd, env, baseLayers, files []string) error {
	ref, err := name.NewTag(tag, name.StrictValidation)
	if err != nil {
		return err
	}
	layerTar, err := buildLayer(files)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for _, p := range baseLayers {
		l, err := tarball.LayerFromFile(p, tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return fmt.Errorf("layer %s: %w", p, err)
		}
		if img, err = mutate.AppendLayers(img, l); err != nil {
			return err
		}
	}
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.WorkingDir = entrypoint, cmd, workdir
	cf.Config.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := tarball.WriteToFile(tmp, ref, img); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, out)
}

// keepLinks packs symbolic links as links (flag -symlinks).
var keepLinks bool

// buildLayer returns the layer's tar: every SRC:DST with its parent folders.
func buildLayer(specs []string) ([]byte, error) {
	type entry struct {
		src  string // "" for a folder made for a parent
		mode fs.FileMode
		link string // the target of a symbolic link (keepLinks)
	}
	entries := map[string]entry{}
	addParents := func(p string) {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := entries[d]; !ok {
				entries[d] = entry{mode: fs.ModeDir | 0o755}
			}
		}
	}
	for _, s := range specs {
		src, dst, ok := strings.Cut(s, ":")
		if !ok || !path.IsAbs(dst) {
			return nil, fmt.Errorf("%q: want SRC:/ABS/DST", s)
		}
		dst = path.Clean(dst)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			target := path.Join(dst, filepath.ToSlash(rel))
			if target == "/" {
				return nil
			}
			if keepLinks && d.Type()&fs.ModeSymlink != 0 {
				link, err := os.Readlink(p)
				if err != nil {
					return err
				}
				entries[target] = entry{src: p, mode: fs.ModeSymlink | 0o777, link: link}
				addParents(target)
				return nil
			}
			info, err := os.Stat(p) // follows symlinks: the image gets their targets
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() && !info.IsDir() {
				return fmt.Errorf("%s: only files and folders can be packed", p)
			}
			entries[target] = entry{src: p, mode: info.Mode()}
			addParents(target)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		e := entries[n]
		hdr := &tar.Header{Name: strings.TrimPrefix(n, "/"), Mode: int64(e.mode.Perm()), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if e.mode&fs.ModeSymlink != 0 {
			hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.link
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, err
			}
			continue
		}
		if e.mode.IsDir() {
			hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, err
			}
			continue
		}
		data, err := os.ReadFile(e.src)
		if err != nil {
			return nil, err
		}
		hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
