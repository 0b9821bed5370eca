// Command standin-base writes the stand-in base image of the nodeimage
// tests, a tiny image shaped like a kind node image, so that `make
// node-image` can be tried where no real kind node image can be had: as an
// image tarball (for BASE_TAR), or pushed to a registry as a linux/amd64 +
// linux/arm64 index, like kindest/node's (for BASE_REF; e.g. to a registry
// on localhost):
//
//	go run ./nodeimage/standin-base -o /tmp/standin-node.tar
//	go run ./nodeimage/standin-base -push localhost:5000/kindest/node:v1.37.1
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/nodeimage"
)

func main() {
	out := flag.String("o", "", "write an image tarball here")
	tag := flag.String("tag", "sidecar-kubelet.local/stand-in-node:v1.37.1", "the tarball's image name")
	arch := flag.String("arch", runtime.GOARCH, "the tarball image's architecture")
	push := flag.String("push", "", "push a linux/amd64 + linux/arm64 index to this reference")
	flag.Parse()
	if (*out == "") == (*push == "") || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "standin-base: give one of -o FILE and -push REF")
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if *out != "" {
		err = write(*out, *tag, *arch)
	} else {
		err = pushIndex(*push)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "standin-base:", err)
		os.Exit(1)
	}
}

func write(out, tag, arch string) error {
	img, err := nodeimage.StandInBase(arch)
	if err != nil {
		return err
	}
	return nodeimage.Write(out, tag, img)
}

func pushIndex(ref string) error {
	r, err := name.ParseReference(ref)
	if err != nil {
		return err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := nodeimage.StandInBase(arch)
		if err != nil {
			return err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}},
		})
	}
	return remote.WriteIndex(r, idx)
}
