// Command nodeimage builds sidecar-kubelet's kind node images: every step
// of it, with one build cache (hack/tools/internal/buildcache), the logic
// in hack/tools/internal/nodeimage. hack/kind/node-image.sh runs it, with
// what hack/lib.sh knows (the series' hash, the version stamp, the work
// tree's state) as flags:
//
//	nodeimage parts [--kubelet-only]   the static binaries and the images of
//	                                   a node built from sources, into
//	                                   _output/kind/vX.Y.Z/{bin,images}
//	nodeimage build                    the node image from sources (make
//	                                   kind-node-image): the parts, a Debian
//	                                   root by debootstrap, the node's files;
//	                                   _output/kind/node-vX.Y.Z.tar, loaded
//	                                   into the engine when one answers
//	nodeimage from-base                kind's node image of the release with
//	                                   the patched kubelet (make node-image):
//	                                   --base-tar, or docker build when an
//	                                   engine answers, or --base-ref
//	nodeimage rootfs NAME PACKAGES     a cached Debian root file system
//	                                   tarball; prints its path
//
// Every flag of the environment's settings defaults to that variable:
// NODE_IMAGE, DEBIAN_MIRROR, NODE_PARTS_DIR, CONTAINERD_VERSION,
// LOCAL_PATH_PROVISIONER_VERSION, KUBELET_ONLY, BASE_TAR, BASE_REF,
// BASE_TAG, KUBELET_BIN.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/nodeimage"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "parts":
		err = parts(ctx, args)
	case "build":
		err = build(ctx, args)
	case "from-base":
		err = fromBase(ctx, args)
	case "rootfs":
		err = rootfs(ctx, args)
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "nodeimage: no subcommand %q\n", cmd)
		usage()
		os.Exit(2)
	}
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeimage:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func usage() {
	fmt.Fprintln(os.Stderr, `usage: nodeimage parts [--kubelet-only] FLAGS
       nodeimage build FLAGS
       nodeimage from-base [--base-tar FILE [--base-tag TAG] | --base-ref REF] [--kubelet FILE] FLAGS
       nodeimage rootfs [--cache DIR] NAME PACKAGES
(hack/kind/node-image.sh gives the FLAGS; nodeimage SUBCOMMAND -h lists them)`)
}

// env is the environment variable's value, or def.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// settings are the flags every subcommand but rootfs takes: what
// hack/lib.sh knows of the project and the release.
type settings struct {
	root, output, release, seriesHash, version, ldflags string
	treeCommit, treeEdits, buildDir                     string
	containerdVersion, containerdTags, lppVersion       string
	imgpack, name, mirror, partsDir, publishedBase      string
}

func (s *settings) register(fs *flag.FlagSet) {
	fs.StringVar(&s.root, "root", "", "the repository (required)")
	fs.StringVar(&s.output, "output", "", "the output folder (default ROOT/_output)")
	fs.StringVar(&s.release, "k8s-version", "", "the upstream release, X.Y.Z or X.Y.Z-pre (required)")
	fs.StringVar(&s.seriesHash, "series-hash", "", "hack/lib.sh series_hash (required)")
	fs.StringVar(&s.version, "version", "", "the version the Kubernetes binaries report (hack/lib.sh version_stamp's VERSION)")
	fs.StringVar(&s.ldflags, "ldflags", "", "the -X flags that stamp it (VERSION_LDFLAGS and buildDate)")
	fs.StringVar(&s.treeCommit, "tree-commit", "", "the work tree's HEAD")
	fs.StringVar(&s.treeEdits, "tree-edits", "", "a digest of the work tree's uncommitted edits")
	fs.StringVar(&s.buildDir, "build-dir", "", "the build module that replaces k8s.io/kubernetes by the work tree (hack/lib.sh BUILD_DIR)")
	fs.StringVar(&s.containerdVersion, "containerd-version", env("CONTAINERD_VERSION", ""), "containerd's release (CONTAINERD_VERSION)")
	fs.StringVar(&s.containerdTags, "containerd-tags", "", "containerd's build tags")
	fs.StringVar(&s.lppVersion, "local-path-provisioner-version", env("LOCAL_PATH_PROVISIONER_VERSION", "v0.0.34"), "rancher's local-path-provisioner release (LOCAL_PATH_PROVISIONER_VERSION; kind v0.33.0 ships v0.0.34)")
	fs.StringVar(&s.imgpack, "imgpack", "", "the hack/tools/imgpack binary")
	fs.StringVar(&s.name, "name", env("NODE_IMAGE", ""), "the node image's name (NODE_IMAGE; default sidecar-kubelet/node:vX.Y.Z)")
	fs.StringVar(&s.mirror, "debian-mirror", env("DEBIAN_MIRROR", nodeimage.DefaultDebianMirror), "debootstrap's mirror (DEBIAN_MIRROR)")
	fs.StringVar(&s.publishedBase, "published-base", "", "kind's published node image of the release, pinned by digest (hack/lib/kind.sh published_node_image): from-base's default base for docker build")
	fs.StringVar(&s.partsDir, "parts-dir", env("NODE_PARTS_DIR", ""), "take bin/ and images/ from there instead of building them (NODE_PARTS_DIR)")
}

func (s *settings) check() error {
	if s.root == "" || s.release == "" || s.seriesHash == "" {
		return errors.New("--root, --k8s-version and --series-hash are required (hack/kind/node-image.sh gives them)")
	}
	if s.output == "" {
		s.output = filepath.Join(s.root, "_output")
	}
	return nil
}

func (s *settings) kindDir() string { return filepath.Join(s.output, "kind") }

func (s *settings) project() nodeimage.Project {
	return nodeimage.Project{Root: s.root, KindDir: s.kindDir(), Release: s.release, SeriesHash: s.seriesHash, Name: s.name}
}

func (s *settings) rootfsCache() nodeimage.RootfsCache {
	return nodeimage.RootfsCache{Dir: filepath.Join(s.kindDir(), "cache"), Mirror: s.mirror}
}

// parts is the parts' builder; it needs the version stamp and the tree.
func (s *settings) parts() (*nodeimage.Parts, error) {
	if s.version == "" || s.ldflags == "" || s.treeCommit == "" || s.buildDir == "" || s.containerdVersion == "" || s.imgpack == "" {
		return nil, errors.New("building the parts needs --version, --ldflags, --tree-commit, --build-dir, --containerd-version and --imgpack (hack/kind/node-image.sh gives them)")
	}
	return &nodeimage.Parts{
		Dir: filepath.Join(s.kindDir(), "v"+s.release), Root: s.root, BuildDir: s.buildDir, Release: s.release,
		Version: s.version, Ldflags: s.ldflags, TreeCommit: s.treeCommit, TreeEdits: s.treeEdits,
		ContainerdVersion: s.containerdVersion, ContainerdTags: s.containerdTags,
		LocalPathProvisionerVersion: s.lppVersion, Imgpack: s.imgpack, Rootfs: s.rootfsCache(),
	}, nil
}

// parse parses a subcommand's flags; extra registers its own.
func parse(name string, args []string, s *settings, extra func(*flag.FlagSet)) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("nodeimage "+name, flag.ContinueOnError)
	if s != nil {
		s.register(fs)
	}
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, errUsage
	}
	if s != nil {
		if err := s.check(); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

func parts(ctx context.Context, args []string) error {
	var s settings
	kubeletOnly := env("KUBELET_ONLY", "") != ""
	if _, err := parse("parts", args, &s, func(fs *flag.FlagSet) {
		fs.BoolVar(&kubeletOnly, "kubelet-only", kubeletOnly, "build the kubelet alone (KUBELET_ONLY=1; make kind-kubelet)")
	}); err != nil {
		return err
	}
	p, err := s.parts()
	if err != nil {
		return err
	}
	if kubeletOnly {
		return p.Kubelet(ctx)
	}
	return p.Build(ctx)
}

func build(ctx context.Context, args []string) error {
	var s settings
	if _, err := parse("build", args, &s, nil); err != nil {
		return err
	}
	b := nodeimage.FromSources{Project: s.project(), PartsDir: s.partsDir, Rootfs: s.rootfsCache(), Imgpack: s.imgpack}
	if b.PartsDir == "" {
		p, err := s.parts()
		if err != nil {
			return err
		}
		b.Parts, b.PartsDir = p, p.Dir
	}
	if s.imgpack == "" {
		return errors.New("--imgpack is required")
	}
	return b.Build(ctx)
}

func fromBase(ctx context.Context, args []string) error {
	var s settings
	var b nodeimage.FromBase
	if _, err := parse("from-base", args, &s, func(fs *flag.FlagSet) {
		fs.StringVar(&b.BaseTar, "base-tar", env("BASE_TAR", ""), "the base kind node image as an image tarball (BASE_TAR; docker save, crane pull)")
		fs.StringVar(&b.BaseTag, "base-tag", env("BASE_TAG", ""), "the image to take from a --base-tar holding several (BASE_TAG)")
		fs.StringVar(&b.BaseRef, "base-ref", env("BASE_REF", ""), "the base kind node image's reference (BASE_REF)")
		fs.StringVar(&b.Kubelet, "kubelet", env("KUBELET_BIN", ""), "this kubelet instead of building the static one (KUBELET_BIN)")
		fs.StringVar(&b.Arch, "arch", "", "the architecture to pick from a multi-platform --base-ref (default: the kubelet's)")
	}); err != nil {
		return err
	}
	b.Project = s.project()
	b.PublishedBase = s.publishedBase
	b.Dockerfile = filepath.Join(s.root, "hack/kind/node-image/Dockerfile")
	b.FallbackVersion = s.version
	if b.Kubelet == "" {
		p, err := s.parts()
		if err != nil {
			return err
		}
		b.Parts = p
	}
	return b.Build(ctx)
}

func rootfs(ctx context.Context, args []string) error {
	cache := ""
	mirror := ""
	fs, err := parse("rootfs", args, nil, func(fs *flag.FlagSet) {
		fs.StringVar(&cache, "cache", "_output/kind/cache", "the cache folder")
		fs.StringVar(&mirror, "debian-mirror", env("DEBIAN_MIRROR", nodeimage.DefaultDebianMirror), "debootstrap's mirror (DEBIAN_MIRROR)")
	})
	if err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: nodeimage rootfs [--cache DIR] NAME PACKAGES (comma-separated)")
		return errUsage
	}
	tarball, err := nodeimage.RootfsCache{Dir: cache, Mirror: mirror}.Tarball(ctx, fs.Arg(0), fs.Arg(1))
	if err != nil {
		return err
	}
	fmt.Println(tarball)
	return nil
}
