// Command nodeimage makes the kind node image of sidecar-kubelet without a
// Docker engine: a base kind node image, from an image tarball, a registry
// or root file system tarballs built here, with one layer appended that holds the patched kubelet at
// /usr/bin/kubelet, written as an image tarball that `docker load` and
// `kind load image-archive` accept. hack/kind/node-image.sh (make node-image)
// runs it; the logic is hack/tools/internal/nodeimage.
//
//	nodeimage --base-tar node.tar --kubelet _output/vX.Y.Z/bin/kubelet \
//	  --upstream-version vX.Y.Z --series-hash <sha256> \
//	  --out _output/images/node-vX.Y.Z.tar
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/nodeimage"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func main() {
	var (
		baseTar  = flag.String("base-tar", "", "base kind node image, as an image tarball (docker save, crane pull)")
		baseTag  = flag.String("base-tag", "", "the image to take from --base-tar when it holds several")
		baseRef  = flag.String("base-ref", "", "base kind node image, as a registry reference (e.g. kindest/node:vX.Y.Z)")
		layers   = flag.String("base-layers", "", "comma-separated root file system tarballs that make the base, in order (a node image built from sources: hack/kind/build-node-image.sh)")
		arch     = flag.String("arch", "", "architecture to pick from a multi-platform --base-ref (default: the kubelet's)")
		kubelet  = flag.String("kubelet", "", "the patched kubelet binary (required)")
		upstream = flag.String("upstream-version", "", "upstream release, vX.Y.Z, or vX.Y.Z-pre for a pre-release (required)")
		series   = flag.String("series-hash", "", "sha256 of the patch series, as hack/lib.sh series_hash prints it (required)")
		version  = flag.String("image-version", "", "org.opencontainers.image.version label (optional; the kubelet's version)")
		imgName  = flag.String("name", "", "name of the result, REPO:TAG (default sidecar-kubelet/node:<upstream-version>)")
		out      = flag.String("out", "", "output image tarball (required)")
	)
	labels := map[string]string{}
	flag.Func("label", "KEY=VALUE label to add (repeat)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, not %q", s)
		}
		labels[k] = v
		return nil
	})
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: nodeimage (--base-tar FILE | --base-ref REF | --base-layers FILE,...) --kubelet FILE --upstream-version vX.Y.Z --series-hash HASH --out FILE [flags]")
		flag.PrintDefaults()
	}
	flag.Parse()
	bases := 0
	for _, b := range []string{*baseTar, *baseRef, *layers} {
		if b != "" {
			bases++
		}
	}
	if flag.NArg() != 0 || *kubelet == "" || *upstream == "" || *series == "" || *out == "" || bases != 1 {
		fmt.Fprintln(os.Stderr, "nodeimage: give exactly one of --base-tar, --base-ref and --base-layers, and --kubelet, --upstream-version, --series-hash, --out")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var layerList []string
	if *layers != "" {
		layerList = strings.Split(*layers, ",")
	}
	if err := run(ctx, *baseTar, *baseTag, *baseRef, layerList, *arch, *imgName, *out, nodeimage.Options{
		Kubelet: *kubelet, UpstreamVersion: *upstream, SeriesHash: *series, ImageVersion: *version, Labels: labels,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "nodeimage:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, baseTar, baseTag, baseRef string, layers []string, arch, imgName, out string, o nodeimage.Options) error {
	start := time.Now()
	if imgName == "" {
		imgName = nodeimage.DefaultName(o.UpstreamVersion)
	}
	var base v1.Image
	var err error
	switch {
	case baseTar != "":
		base, err = nodeimage.LoadBaseTarball(baseTar, baseTag)
	case len(layers) > 0:
		if arch == "" {
			arch = kubeletArch(o.Kubelet)
		}
		base, err = nodeimage.BaseFromLayers(layers, arch)
	default:
		if arch == "" {
			arch = kubeletArch(o.Kubelet)
		}
		base, err = nodeimage.LoadBaseRemote(ctx, baseRef, arch)
	}
	if err != nil {
		return err
	}
	img, err := nodeimage.Build(base, o)
	if err != nil {
		return err
	}
	if err := nodeimage.Write(out, imgName, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	imgLayers, err := img.Layers()
	if err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "nodeimage: wrote %s: %s (%s, %d layers, %d MB) in %s\n",
		out, imgName, digest, len(imgLayers), fi.Size()>>20, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// kubeletArch is the architecture the kubelet binary is built for, or this
// machine's when it cannot tell.
func kubeletArch(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	head := make([]byte, 64) // the ELF header
	n, _ := f.Read(head)
	if a := nodeimage.ELFArch(head[:n]); a != "" {
		return a
	}
	return runtime.GOARCH
}
