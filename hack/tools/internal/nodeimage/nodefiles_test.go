package nodeimage

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var testImages = NodeImages{
	Pause:       "registry.k8s.io/pause:3.10.1",
	Podnet:      "sidecar-kubelet.local/podnet:0123456789ab",
	Provisioner: "sidecar-kubelet.local/local-path-provisioner:v0.0.34",
	Helper:      "sidecar-kubelet.local/local-path-helper:ba9876543210",
}

func TestSubstitute(t *testing.T) {
	for _, tc := range []struct {
		name, rel, in, want string
		images              NodeImages
		wantErr             bool
	}{
		{name: "containerd's sandbox", rel: "etc/containerd/config.toml", images: testImages,
			in: "  sandbox = 'PAUSE_IMAGE'\n", want: "  sandbox = 'registry.k8s.io/pause:3.10.1'\n"},
		{name: "the pod network", rel: "kind/manifests/default-cni.yaml", images: testImages,
			in: "        image: PODNET_IMAGE\n", want: "        image: sidecar-kubelet.local/podnet:0123456789ab\n"},
		{name: "the storage's two images", rel: "kind/manifests/default-storage.yaml", images: testImages,
			in:   "image: LOCAL_PATH_PROVISIONER_IMAGE\n---\nimage: LOCAL_PATH_HELPER_IMAGE\n",
			want: "image: sidecar-kubelet.local/local-path-provisioner:v0.0.34\n---\nimage: sidecar-kubelet.local/local-path-helper:ba9876543210\n"},
		{name: "another file is left alone", rel: "etc/default/kubelet", images: testImages,
			in: "PAUSE_IMAGE stays\n", want: "PAUSE_IMAGE stays\n"},
		{name: "a placeholder the file lost", rel: "etc/containerd/config.toml", images: testImages,
			in: "  sandbox = 'registry.k8s.io/pause:3.9'\n", wantErr: true},
		{name: "no image for a placeholder", rel: "kind/manifests/default-cni.yaml", images: NodeImages{Pause: "p"},
			in: "image: PODNET_IMAGE\n", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.images.Substitute(tc.rel, []byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, string(got)); !tc.wantErr && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func writeFiles(t *testing.T, root string, files map[string]string, mode os.FileMode) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// entrySummary is what the test checks of a layer entry.
type entrySummary struct {
	Type     byte
	Mode     int64
	Linkname string
	Content  string
}

func TestNodeFilesWrite(t *testing.T) {
	dir := t.TempDir()
	files, parts := filepath.Join(dir, "files"), filepath.Join(dir, "parts")
	writeFiles(t, files, map[string]string{
		"etc/containerd/config.toml":          "sandbox = 'PAUSE_IMAGE'\n",
		"kind/manifests/default-cni.yaml":     "image: PODNET_IMAGE\n",
		"kind/manifests/default-storage.yaml": "LOCAL_PATH_PROVISIONER_IMAGE LOCAL_PATH_HELPER_IMAGE\n",
	}, 0o644)
	writeFiles(t, files, map[string]string{"usr/local/bin/entrypoint": "#!/bin/sh\n"}, 0o755)
	writeFiles(t, parts, map[string]string{
		"bin/containerd": "c", "bin/containerd-shim-runc-v2": "s", "bin/ctr": "t",
		"bin/kubeadm": "a", "bin/kubectl": "k", "bin/kubelet": "not in this layer",
		"images/pause.tar": "P", "images/list.txt": "not an image",
	}, 0o755)
	podnet := filepath.Join(dir, "podnet.tar")
	writeFiles(t, dir, map[string]string{"podnet.tar": "N"}, 0o644)

	out := filepath.Join(dir, "layer.tar")
	n := NodeFiles{Files: files, Parts: parts, Release: "1.99.1", Images: testImages, ExtraImages: []string{podnet}}
	if err := n.Write(out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]entrySummary{}
	var order []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.ModTime.Unix() != 0 {
			t.Errorf("%s: owner %d:%d, time %v; want 0:0 at 0", h.Name, h.Uid, h.Gid, h.ModTime)
		}
		b, _ := io.ReadAll(tr)
		got[h.Name] = entrySummary{Type: h.Typeflag, Mode: h.Mode, Linkname: h.Linkname, Content: string(b)}
		order = append(order, h.Name)
	}
	dirEntry := entrySummary{Type: tar.TypeDir, Mode: 0o755}
	link := func(to string) entrySummary { return entrySummary{Type: tar.TypeSymlink, Mode: 0o777, Linkname: to} }
	reg := func(mode int64, c string) entrySummary {
		return entrySummary{Type: tar.TypeReg, Mode: mode, Content: c}
	}
	want := map[string]entrySummary{
		"./": dirEntry, "etc/": dirEntry, "etc/cni/": dirEntry, "etc/cni/net.d/": dirEntry, "etc/containerd/": dirEntry,
		"etc/containerd/config.toml": reg(0o644, "sandbox = 'registry.k8s.io/pause:3.10.1'\n"),
		"etc/kubernetes/":            dirEntry, "etc/kubernetes/manifests/": dirEntry,
		"etc/systemd/": dirEntry, "etc/systemd/system/": dirEntry, "etc/systemd/system/multi-user.target.wants/": dirEntry,
		"etc/systemd/system/multi-user.target.wants/containerd.service":         link("/etc/systemd/system/containerd.service"),
		"etc/systemd/system/multi-user.target.wants/import-node-images.service": link("/etc/systemd/system/import-node-images.service"),
		"etc/systemd/system/multi-user.target.wants/kubelet.service":            link("/etc/systemd/system/kubelet.service"),
		"kind/": dirEntry, "kind/images/": dirEntry, "kind/manifests/": dirEntry,
		"kind/images/pause.tar":               reg(0o644, "P"),
		"kind/images/podnet.tar":              reg(0o644, "N"),
		"kind/manifests/default-cni.yaml":     reg(0o644, "image: sidecar-kubelet.local/podnet:0123456789ab\n"),
		"kind/manifests/default-storage.yaml": reg(0o644, "sidecar-kubelet.local/local-path-provisioner:v0.0.34 sidecar-kubelet.local/local-path-helper:ba9876543210\n"),
		"kind/version":                        reg(0o644, "v1.99.1\n"),
		"usr/":                                dirEntry, "usr/bin/": dirEntry, "usr/local/": dirEntry, "usr/local/bin/": dirEntry,
		"usr/bin/kubeadm":                       reg(0o755, "a"),
		"usr/bin/kubectl":                       reg(0o755, "k"),
		"usr/local/bin/containerd":              reg(0o755, "c"),
		"usr/local/bin/containerd-shim-runc-v2": reg(0o755, "s"),
		"usr/local/bin/ctr":                     reg(0o755, "t"),
		"usr/local/bin/entrypoint":              reg(0o755, "#!/bin/sh\n"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layer entries (-want +got):\n%s", diff)
	}
	// A folder comes before what it holds.
	seen := map[string]bool{}
	for _, name := range order {
		if d := filepath.Dir(filepath.Clean(name)); d != "." && !seen[d+"/"] {
			t.Errorf("%s comes before its folder %s/", name, d)
		}
		seen[name] = true
	}
}
