/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestImageLoadsBack(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "testserver")
	content := []byte("#!/bin/true\nnot really a binary\n")
	if err := os.WriteFile(binary, content, 0o755); err != nil {
		t.Fatal(err)
	}
	const ref = "sidecar-kubelet.local/testserver:1"
	out := filepath.Join(dir, "testserver.tar")
	if err := run(out, ref, "/", "amd64", []string{"/testserver"}, nil, nil, nil, []string{binary + ":/testserver"}); err != nil {
		t.Fatal(err)
	}

	// Load it back by its tag, as an importer would.
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("loading %s back: %v", out, err)
	}
	manifest, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(out) })
	if err != nil {
		t.Fatal(err)
	}
	if len(manifest) != 1 || !slices.Equal(manifest[0].RepoTags, []string{ref}) {
		t.Errorf("manifest.json = %+v, want one image tagged %s", manifest, ref)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != "linux" || cfg.Architecture != "amd64" || !slices.Equal(cfg.Config.Entrypoint, []string{"/testserver"}) {
		t.Errorf("config: os=%q arch=%q entrypoint=%q, want linux amd64 [/testserver]", cfg.OS, cfg.Architecture, cfg.Config.Entrypoint)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v; want 1", len(layers), err)
	}
	// The image's file system holds the executable binary.
	fs := tar.NewReader(mutate.Extract(img))
	found := false
	for {
		h, err := fs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "testserver" {
			t.Errorf("unexpected file %q in the image", h.Name)
			continue
		}
		found = true
		data, _ := io.ReadAll(fs)
		if h.Mode&0o111 == 0 || !bytes.Equal(data, content) {
			t.Errorf("testserver: mode %o, content %q; want executable, %q", h.Mode, data, content)
		}
	}
	if !found {
		t.Error("no /testserver in the image")
	}

	// Reproducible: packing again gives the same bytes.
	first, _ := os.ReadFile(out)
	if err := run(out, ref, "/", "amd64", []string{"/testserver"}, nil, nil, nil, []string{binary + ":/testserver"}); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(out); !bytes.Equal(first, second) {
		t.Error("packing the same binary twice gave different tarballs")
	}
}

func TestRejectsBadName(t *testing.T) {
	dir := t.TempDir()
	if err := run(filepath.Join(dir, "x.tar"), "Not A Name!", "/", "amd64", nil, nil, nil, nil, []string{filepath.Join(dir, "nope") + ":/x"}); err == nil {
		t.Error("want an error for an invalid image name")
	}
}

func TestSymlinks(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "rootfs")
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "busybox"), []byte("box"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("busybox", filepath.Join(root, "bin", "sh")); err != nil {
		t.Fatal(err)
	}
	pack := func(keep bool) map[string]*tar.Header {
		keepLinks = keep
		defer func() { keepLinks = false }()
		layer, err := buildLayer([]string{root + ":/"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*tar.Header{}
		tr := tar.NewReader(bytes.NewReader(layer))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return got
			}
			if err != nil {
				t.Fatal(err)
			}
			got[h.Name] = h
		}
	}
	if h := pack(true)["bin/sh"]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != "busybox" {
		t.Errorf("-symlinks: bin/sh = %+v, want a link to busybox", h)
	}
	if h := pack(false)["bin/sh"]; h == nil || h.Typeflag != tar.TypeReg || h.Size != 3 {
		t.Errorf("default: bin/sh = %+v, want busybox's content", h)
	}
}

// TestBaseLayers puts a root file system tarball under the packed files: the
// image has both layers, the packed file on top, and PATH finds sbin.
func TestBaseLayers(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root.tar")
	f, err := os.Create(root)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for name, body := range map[string]string{"usr/sbin/iptables": "iptables", "usr/local/bin/kube-proxy": "old"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	f.Close()
	binary := filepath.Join(dir, "kube-proxy")
	if err := os.WriteFile(binary, []byte("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "proxy.tar")
	const ref = "registry.k8s.io/kube-proxy:test"
	if err := run(out, ref, "/", "amd64", []string{"/usr/local/bin/kube-proxy"}, nil, nil, []string{root}, []string{binary + ":/usr/local/bin/kube-proxy"}); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag(ref)
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatal(err)
	}
	if layers, _ := img.Layers(); len(layers) != 2 {
		t.Fatalf("%d layers, want 2", len(layers))
	}
	got := map[string]string{}
	fs := tar.NewReader(mutate.Extract(img))
	for {
		h, err := fs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(fs)
			got[h.Name] = string(b)
		}
	}
	if got["usr/sbin/iptables"] != "iptables" || got["usr/local/bin/kube-proxy"] != "new" {
		t.Errorf("files: %v; want the base's iptables and the packed kube-proxy on top", got)
	}
	cfg, _ := img.ConfigFile()
	if !slices.Contains(cfg.Config.Env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") {
		t.Errorf("env %v: PATH should reach sbin", cfg.Config.Env)
	}
	if err := run(out, ref, "/", "amd64", nil, nil, nil, []string{filepath.Join(dir, "missing.tar")}, []string{binary + ":/x"}); err == nil {
		t.Error("a missing base layer: no error")
	}
}
