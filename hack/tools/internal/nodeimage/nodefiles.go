package nodeimage

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// NodeImages are the images the node's own files name, which the files
// in hack/kind/node/files hold as placeholders.
type NodeImages struct {
	Pause       string // containerd's sandbox image (PAUSE_IMAGE)
	Podnet      string // the pod network's daemon (PODNET_IMAGE)
	Provisioner string // the default storage's provisioner (LOCAL_PATH_PROVISIONER_IMAGE)
	Helper      string // its helper pod (LOCAL_PATH_HELPER_IMAGE)
}

// Substitutions are, per file of the node's files (its path in the node),
// the placeholders to replace and by what.
func (i NodeImages) Substitutions() map[string][][2]string {
	return map[string][][2]string{
		"etc/containerd/config.toml":      {{"PAUSE_IMAGE", i.Pause}},
		"kind/manifests/default-cni.yaml": {{"PODNET_IMAGE", i.Podnet}},
		"kind/manifests/default-storage.yaml": {
			{"LOCAL_PATH_PROVISIONER_IMAGE", i.Provisioner},
			{"LOCAL_PATH_HELPER_IMAGE", i.Helper},
		},
	}
}

// Substitute replaces the placeholders of the node's file at rel (its path
// in the node) in content; a file without substitutions is returned as it
// is. A placeholder missing from its file is an error: the file and the
// builder no longer agree.
func (i NodeImages) Substitute(rel string, content []byte) ([]byte, error) {
	subs, ok := i.Substitutions()[rel]
	if !ok {
		return content, nil
	}
	s := string(content)
	for _, sub := range subs {
		if !strings.Contains(s, sub[0]) {
			return nil, fmt.Errorf("%s has no %s to replace", rel, sub[0])
		}
		if sub[1] == "" {
			return nil, fmt.Errorf("%s: no image for %s", rel, sub[0])
		}
		s = strings.ReplaceAll(s, sub[0], sub[1])
	}
	return []byte(s), nil
}

// NodeFiles is the node image's second layer (over the Debian root): the
// node's own files (hack/kind/node/files: entrypoint, units, containerd's
// config, the manifests of the pod network and the default storage) with
// their placeholders replaced, containerd, kubeadm and kubectl,
// /kind/version, and the images as tarballs under /kind/images, which
// import-node-images.service imports at boot.
type NodeFiles struct {
	// Files is hack/kind/node/files.
	Files string
	// Parts is the parts' folder (bin/, images/).
	Parts string
	// Release is the upstream release, without the v.
	Release string
	Images  NodeImages
	// ExtraImages are more image tarballs for /kind/images (the pod
	// network's).
	ExtraImages []string
}

// nodeBinaries are the parts' binaries the layer holds, by folder in the
// node (crictl only when the parts have one).
var nodeBinaries = []struct {
	dir      string
	names    []string
	optional bool
}{
	{"usr/local/bin", []string{"containerd", "containerd-shim-runc-v2", "ctr"}, false},
	{"usr/local/bin", []string{"crictl"}, true},
	{"usr/bin", []string{"kubeadm", "kubectl"}, false},
}

// enabledUnits are the node's units started at boot.
var enabledUnits = []string{"containerd.service", "import-node-images.service", "kubelet.service"}

// layerEntry is one entry of the layer: its header, and its content from a
// file (src) or from data.
type layerEntry struct {
	hdr  tar.Header
	src  string
	data []byte
}

// entries lists the layer's entries by their path in the node.
func (n NodeFiles) entries() (map[string]*layerEntry, error) {
	es := map[string]*layerEntry{}
	dir := func(p string, mode int64) {
		es[p] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: p + "/", Mode: mode}}
	}
	file := func(p string, mode int64, src string, data []byte) {
		es[p] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: mode}, src: src, data: data}
	}
	err := filepath.WalkDir(n.Files, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(n.Files, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		fi, err := e.Info()
		if err != nil {
			return err
		}
		switch {
		case e.IsDir():
			dir(rel, int64(fi.Mode().Perm()))
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			es[rel] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: rel, Linkname: target, Mode: 0o777}}
		case e.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if b, err = n.Images.Substitute(rel, b); err != nil {
				return err
			}
			file(rel, int64(fi.Mode().Perm()), "", b)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the node's files %s: %w", n.Files, err)
	}
	for _, d := range []string{"usr/local/bin", "usr/bin", "kind/images", "etc/systemd/system/multi-user.target.wants", "etc/cni/net.d", "etc/kubernetes/manifests"} {
		dir(d, 0o755)
	}
	for _, b := range nodeBinaries {
		for _, name := range b.names {
			src := filepath.Join(n.Parts, "bin", name)
			if _, err := os.Stat(src); err != nil {
				if b.optional {
					continue
				}
				return nil, fmt.Errorf("the node parts lack %s: %w", name, err)
			}
			file(b.dir+"/"+name, 0o755, src, nil)
		}
	}
	tars, err := filepath.Glob(filepath.Join(n.Parts, "images", "*.tar"))
	if err != nil {
		return nil, err
	}
	for _, t := range append(tars, n.ExtraImages...) {
		file("kind/images/"+filepath.Base(t), 0o644, t, nil)
	}
	file("kind/version", 0o644, "", []byte("v"+n.Release+"\n"))
	for _, u := range enabledUnits {
		p := "etc/systemd/system/multi-user.target.wants/" + u
		es[p] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: p, Linkname: "/etc/systemd/system/" + u, Mode: 0o777}}
	}
	// Every parent folder has its entry.
	for p := range es {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := es[d]; !ok {
				dir(d, 0o755)
			}
		}
	}
	return es, nil
}

// Write writes the layer as a plain tar file at out: entries sorted by
// name, owned by 0:0, times zero, so that the same inputs give the same
// layer.
func (n NodeFiles) Write(out string) error {
	es, err := n.entries()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(es))
	for p := range es {
		names = append(names, p)
	}
	sort.Strings(names)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "./", Mode: 0o755, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}); err != nil {
		return err
	}
	for _, p := range names {
		e := es[p]
		h := e.hdr
		h.ModTime, h.Format = time.Unix(0, 0), tar.FormatPAX
		if err := writeEntry(tw, &h, e); err != nil {
			return fmt.Errorf("the node files layer, %s: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func writeEntry(tw *tar.Writer, h *tar.Header, e *layerEntry) error {
	if h.Typeflag != tar.TypeReg {
		return tw.WriteHeader(h)
	}
	if e.src == "" {
		h.Size = int64(len(e.data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(e.data)
		return err
	}
	src, err := os.Open(e.src)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	h.Size = fi.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, src)
	return err
}
