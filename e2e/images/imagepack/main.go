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

// Command imagepack packs one static binary into a single-layer image and
// writes it as an image tarball (the `docker save` format that
// `ctr images import` and `kind load image-archive` read), with
// go-containerregistry:
//
//	imagepack --binary _output/bin/testserver --name sidecar-kubelet.local/testserver:1 \
//	          --out _output/images/testserver.tar
//
// The image is reproducible: the same binary gives the same bytes.
//
// It is a module of its own so that go-containerregistry and its
// dependencies stay out of the root module's graph, which the kubelet's build
// module includes.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	binary := flag.String("binary", "", "the static binary to pack")
	ref := flag.String("name", "", "image name and tag, for example sidecar-kubelet.local/testserver:1")
	out := flag.String("out", "", "image tarball to write")
	into := flag.String("path", "", "path of the binary in the image (default: /<base name of --binary>)")
	arch := flag.String("arch", runtime.GOARCH, "the image's architecture")
	flag.Parse()
	if *binary == "" || *ref == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *into == "" {
		*into = "/" + filepath.Base(*binary)
	}
	if err := Pack(*binary, *into, *ref, *arch, *out); err != nil {
		fmt.Fprintln(os.Stderr, "imagepack:", err)
		os.Exit(1)
	}
}

// Pack writes to out an image named ref whose one layer holds binary at
// inImage, which is also the image's entrypoint. The file is replaced
// atomically.
func Pack(binary, inImage, ref, arch, out string) error {
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return err
	}
	img, err := Image(binary, inImage, arch)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".imagepack-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := tarball.WriteToFile(tmp.Name(), tag, img); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// Image builds the image: empty.Image plus one layer holding the binary,
// entrypoint the binary, for linux/arch.
func Image(binary, inImage, arch string) (v1.Image, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	layerTar, err := fileLayer(path.Clean("/"+inImage), data)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Config.Entrypoint = []string{path.Clean("/" + inImage)}
	cfg.Config.Env = []string{"PATH=/"}
	return mutate.ConfigFile(img, cfg)
}

// fileLayer is the uncompressed layer: the one executable file at p, with
// fixed ownership and times so that the layer is reproducible.
// go-containerregistry reads layers as tar streams; archive/tar writes one.
func fileLayer(p string, data []byte) ([]byte, error) {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	if err := w.WriteHeader(&tar.Header{
		Typeflag: tar.TypeReg,
		Name:     p[1:],
		Mode:     0o755,
		Size:     int64(len(data)),
		Format:   tar.FormatPAX,
	}); err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
