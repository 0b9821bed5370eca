package nodeimage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/buildcache"
)

// NodePackages are the Debian packages of a node built from sources: what
// kind's base image installs, less NFS, iSCSI and fuse-overlayfs, plus runc
// and the CNI plugins, which kind builds and Debian packages (the local
// cluster uses the same packages).
const NodePackages = "systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,ca-certificates,curl,jq,procps,socat,runc,containernetworking-plugins"

// Labels of a node image built here besides Options' own.
const (
	LabelBase     = "io.sidecar-kubelet.base"
	LabelRevision = "org.opencontainers.image.revision"
	// LabelBuild holds the key of every input of a node image built from
	// sources: an engine that holds an image with the same key is not
	// loaded again.
	LabelBuild = "io.sidecar-kubelet.build"
)

// Project is what the builder knows of this repository and the release it
// builds for, as hack/lib.sh computes it.
type Project struct {
	// Root is the repository, KindDir its _output/kind.
	Root    string
	KindDir string
	// Release is the upstream release, X.Y.Z or X.Y.Z-pre, without the v.
	Release string
	// SeriesHash is hack/lib.sh series_hash of the release's series.
	SeriesHash string
	// Name is the node image's name (default DefaultName(Release)).
	Name string
}

// Out is the node image tarball: _output/kind/node-vX.Y.Z.tar.
func (p Project) Out() string { return filepath.Join(p.KindDir, "node-v"+p.Release+".tar") }

func (p Project) stamp() buildcache.Stamp { return buildcache.Stamp(p.Out() + ".fingerprint") }

func (p Project) name() string {
	if p.Name != "" {
		return p.Name
	}
	return DefaultName(p.Release)
}

// Revision is the project's commit, with "-dirty" when what a node image
// is built from (hack, kind-config, patches, kubelet) has uncommitted edits.
func (p Project) Revision(ctx context.Context) (string, error) {
	commit, err := Command{Name: "git", Args: []string{"-C", p.Root, "rev-parse", "HEAD"}, Quiet: true}.Output(ctx)
	if err != nil {
		return "", err
	}
	status, _ := Command{Name: "git", Args: []string{"-C", p.Root, "status", "--porcelain", "--", "hack", "kind-config", "patches", "kubelet"}, Quiet: true}.Output(ctx)
	if status != "" {
		commit += "-dirty"
	}
	return commit, nil
}

// FromSources builds the node image from sources this machine reaches (the
// Go module proxy and Debian's packages), for machines without a container
// registry (make kind-node-image):
//
//	layer 1  Debian bookworm with systemd and NodePackages (RootfsCache)
//	layer 2  the node's files, binaries and images (NodeFiles, of Parts)
//	layer 3  the patched kubelet, static (Build refuses a kubelet that
//	         would not start on the base's glibc)
//
// written as Project.Out, labelled with its base and the project's commit,
// and loaded into the Docker engine when one answers. Its stamp,
// Out.fingerprint, holds the key of every input.
type FromSources struct {
	Project
	// Parts builds the parts; nil when PartsDir holds them already
	// (NODE_PARTS_DIR).
	Parts    *Parts
	PartsDir string
	Rootfs   RootfsCache
	// Imgpack packs the pod network's image.
	Imgpack string
}

// Build builds the node image unless it is fresh, and loads it into the
// engine unless the engine holds it already.
func (s FromSources) Build(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("building a node image from sources needs root (debootstrap, the layer's owners)")
	}
	if s.Parts != nil {
		if err := s.Parts.Build(ctx); err != nil {
			return err
		}
	}
	rootfs, err := s.Rootfs.Tarball(ctx, "bookworm-node", NodePackages)
	if err != nil {
		return err
	}
	images, err := s.partsImages()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.KindDir, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(s.KindDir, ".node-image.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	podnetTar, err := s.podnet(ctx, work, &images)
	if err != nil {
		return err
	}
	revision, err := s.Revision(ctx)
	if err != nil {
		return err
	}
	rootfsSum, err := buildcache.FileSHA256(rootfs)
	if err != nil {
		return err
	}

	var d buildcache.Description
	d.Line("name", s.name()).Line("commit", revision).Line("rootfs", rootfsSum+"  -")
	if err := d.Files(s.Root, []string{"hack/kind/node"}, nil); err != nil {
		return err
	}
	if err := d.Files(s.PartsDir, []string{"bin", "images"}, nil); err != nil {
		return err
	}
	if err := d.FileSum(podnetTar); err != nil {
		return err
	}
	if err := describeBuilder(&d); err != nil {
		return err
	}
	key := d.Key()
	built, err := buildcache.Step{Stamp: s.stamp(), Key: key, Outputs: []string{s.Out()}}.Run(func() error {
		layer := filepath.Join(work, "node-files.tar")
		if err := (NodeFiles{Files: filepath.Join(s.Root, "hack/kind/node/files"), Parts: s.PartsDir, Release: s.Release,
			Images: images, ExtraImages: []string{podnetTar}}).Write(layer); err != nil {
			return err
		}
		kubelet := filepath.Join(s.PartsDir, "bin", "kubelet")
		version, err := kubeletVersion(ctx, kubelet, s.Release, "")
		if err != nil {
			return err
		}
		Logf("assembling %s (kubelet %s)", s.name(), version)
		base, err := BaseFromLayers([]string{rootfs, layer}, KubeletArch(kubelet))
		if err != nil {
			return err
		}
		return Assemble(base, s.name(), s.Out(), Options{
			Kubelet: kubelet, UpstreamVersion: "v" + s.Release, SeriesHash: s.SeriesHash, ImageVersion: version,
			Labels: map[string]string{
				LabelBase:     fmt.Sprintf("debian %s %s + hack/kind/node (sources)", Suite, rootfsSum[:12]),
				LabelRevision: revision,
				LabelBuild:    key,
			},
		})
	})
	if err != nil {
		return err
	}
	if !built {
		Logf("%s is up to date (%s)", s.Out(), s.name())
	}
	if err := LoadIntoEngine(ctx, s.name(), s.Out(), key); err != nil {
		return err
	}
	Logf("node image: %s (%s)", s.name(), s.Out())
	return nil
}

// partsImages reads the images the parts built (images/list.txt,
// images/storage.txt) that the node's files name.
func (s FromSources) partsImages() (NodeImages, error) {
	list, err := os.ReadFile(filepath.Join(s.PartsDir, "images", "list.txt"))
	if err != nil {
		return NodeImages{}, fmt.Errorf("the node parts did not finish: %w", err)
	}
	pause, err := ImageOf(strings.Fields(string(list)), "pause")
	if err != nil {
		return NodeImages{}, err
	}
	storage, err := os.ReadFile(filepath.Join(s.PartsDir, "images", "storage.txt"))
	if err != nil {
		return NodeImages{}, fmt.Errorf("the node parts did not finish: %w", err)
	}
	sl, err := ParseStorageList(string(storage))
	if err != nil {
		return NodeImages{}, err
	}
	return NodeImages{Pause: pause, Provisioner: sl.Provisioner, Helper: sl.Helper}, nil
}

// podnet builds the pod network's image (hack/images/podnet) into work and
// names it in images.
func (s FromSources) podnet(ctx context.Context, work string, images *NodeImages) (string, error) {
	bin := filepath.Join(work, "podnet")
	if err := (Command{Name: "go", Args: []string{"build", "-trimpath", "-o", bin, "./hack/images/podnet"}, Dir: s.Root, Env: goStatic, Quiet: true}).Run(ctx); err != nil {
		return "", err
	}
	sum, err := buildcache.FileSHA256(bin)
	if err != nil {
		return "", err
	}
	images.Podnet = "sidecar-kubelet.local/podnet:" + sum[:12]
	out := filepath.Join(work, "podnet.tar")
	if err := (Command{Name: s.Imgpack, Args: []string{"-o", out, "-tag", images.Podnet, "-entrypoint", "/podnet", bin + ":/podnet"}, Quiet: true}).Run(ctx); err != nil {
		return "", err
	}
	return out, nil
}

// describeBuilder adds the builder itself (this binary) to a description:
// another builder may assemble another image from the same inputs.
func describeBuilder(d *buildcache.Description) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the builder's own binary: %w", err)
	}
	return d.FileSum(self)
}

// kubeletVersion is the version the kubelet reports, which must be the
// fork's of release; when the kubelet cannot run here (built for another
// architecture) it is fallback, said in the log (or an error without one).
func kubeletVersion(ctx context.Context, kubelet, release, fallback string) (string, error) {
	out, err := Command{Name: kubelet, Args: []string{"--version"}, Quiet: true}.Output(ctx)
	if err != nil {
		if fallback == "" {
			return "", fmt.Errorf("%s --version: %w", kubelet, err)
		}
		Logf("cannot run %s here; labelling it %s", kubelet, fallback)
		return fallback, nil
	}
	v := strings.TrimPrefix(out, "Kubernetes ")
	if !strings.HasPrefix(v, "v"+release+"-sidecar-kubelet+") {
		return "", fmt.Errorf("%s reports %q: not sidecar-kubelet's kubelet for v%s", kubelet, out, release)
	}
	return v, nil
}

// Assemble builds the node image of base and the kubelet (Build) and
// writes it to out, named name.
func Assemble(base v1.Image, name, out string, o Options) error {
	start := time.Now()
	img, err := Build(base, o)
	if err != nil {
		return err
	}
	if err := Write(out, name, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	Logf("wrote %s: %s (%s, %d layers, %d MB) in %s", out, name, digest, len(layers), fi.Size()>>20, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// KubeletArch is the architecture the kubelet binary is built for, or
// this machine's when it cannot tell.
func KubeletArch(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	head := make([]byte, 64) // the ELF header
	n, _ := f.Read(head)
	if a := ELFArch(head[:n]); a != "" {
		return a
	}
	return runtime.GOARCH
}
